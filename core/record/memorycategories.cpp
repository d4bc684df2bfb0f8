#include "core/record/memorycategories.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace pyrometer::record {

namespace {

constexpr std::array<std::string_view, kMemoryCategoryCount> kKeys{
    "parameters", "gradients", "optimizer_state", "activations", "inputs", "temporaries", "other"};
constexpr std::array<std::string_view, kMemoryCategoryCount> kLabels{
    "Parameters", "Gradients", "Optimizer state", "Activations", "Inputs", "Temporaries", "Other"};

bool anyRecorded(const MemoryCategories &categories)
{
    for (const auto &sample : categories.samples)
        if (sample.recorded)
            return true;
    return false;
}

} // namespace

std::string_view memoryCategoryKey(MemoryCategory category)
{
    return kKeys[std::size_t(category)];
}

std::string_view memoryCategoryLabel(MemoryCategory category)
{
    return kLabels[std::size_t(category)];
}

std::int64_t MemorySample::total() const
{
    std::int64_t sum = 0;
    for (const auto value : bytes)
        sum += value;
    return sum;
}

std::filesystem::path memoryFileFor(const std::filesystem::path &trace)
{
    const auto name = trace.filename().string();
    for (const std::string_view suffix : {".pt.trace.json.gz", ".pt.trace.json"}) {
        if (name.size() > suffix.size() && name.ends_with(suffix))
            return trace.parent_path() / (name.substr(0, name.size() - suffix.size()) + ".pt.memory.json");
    }
    return {};
}

Result<MemoryCategories> loadMemoryCategories(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path.string() + ": cannot be read"};
    std::stringstream text;
    text << in.rdbuf();
    const auto json = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object())
        return Error{path.string() + ": not a memory file (not a JSON object)"};
    if (json.value("format", 0) != 1)
        return Error{path.string() + ": unknown memory file format " + json.value("format", nlohmann::json()).dump()};
    const auto names = json.find("categories");
    const auto samples = json.find("samples");
    if (names == json.end() || !names->is_array() || samples == json.end() || !samples->is_array())
        return Error{path.string() + ": a memory file without categories or samples"};
    // The file names its columns: map each to ours, so an older or newer launcher's order works.
    std::vector<int> column;
    for (const auto &name : *names) {
        int index = int(MemoryCategory::Other);
        for (std::size_t i = 0; i < kKeys.size(); ++i)
            if (name.is_string() && name.get<std::string>() == kKeys[i])
                index = int(i);
        column.push_back(index);
    }
    MemoryCategories result;
    result.source = json.value("source", std::string());
    result.device = json.value("device", std::string());
    result.allocator = json.value("allocator", std::string());
    result.resolution = json.value("resolution", std::string());
    result.baselineBytes = json.value("baseline_bytes", std::int64_t(0));
    result.samples.reserve(samples->size());
    for (const auto &entry : *samples) {
        const auto bytes = entry.find("bytes");
        if (!entry.is_object() || bytes == entry.end() || !bytes->is_array() || bytes->size() != column.size())
            return Error{path.string() + ": sample " + std::to_string(result.samples.size()) +
                         " does not have one size per category"};
        MemorySample sample;
        sample.seconds = entry.value("t", 0.0);
        sample.step = entry.value("step", -1);
        if (const auto named = entry.find("profiler_step"); named != entry.end() && named->is_number_integer())
            sample.profilerStep = named->get<int>();
        sample.phase = entry.value("phase", std::string());
        sample.recorded = entry.value("recorded", false);
        for (std::size_t i = 0; i < column.size(); ++i) {
            if (!(*bytes)[i].is_number())
                return Error{path.string() + ": sample " + std::to_string(result.samples.size()) +
                             " has a size that is not a number"};
            sample.bytes[std::size_t(column[i])] += (*bytes)[i].get<std::int64_t>();
        }
        result.samples.push_back(std::move(sample));
    }
    return result;
}

MemoryPeak memoryPeak(const MemoryCategories &categories)
{
    MemoryPeak peak;
    const bool recordedOnly = anyRecorded(categories);
    for (std::size_t i = 0; i < categories.samples.size(); ++i) {
        const auto &sample = categories.samples[i];
        if (recordedOnly && !sample.recorded)
            continue;
        if (!peak.found() || sample.total() > peak.sample.total()) {
            peak.index = i;
            peak.sample = sample;
        }
    }
    return peak;
}

std::string memorySamplePlace(const MemorySample &sample)
{
    std::string phase = sample.phase;
    std::replace(phase.begin(), phase.end(), '_', ' ');
    std::string step;
    if (sample.profilerStep >= 0)
        step = "ProfilerStep#" + std::to_string(sample.profilerStep);
    else if (sample.step >= 0)
        step = "the program's step " + std::to_string(sample.step);
    if (step.empty() || phase.empty())
        return step + phase;
    return step + ", " + phase;
}

std::array<std::int64_t, kMemoryCategoryCount> categoryMaxima(const MemoryCategories &categories)
{
    std::array<std::int64_t, kMemoryCategoryCount> maxima{};
    const bool recordedOnly = anyRecorded(categories);
    for (const auto &sample : categories.samples) {
        if (recordedOnly && !sample.recorded)
            continue;
        for (std::size_t i = 0; i < maxima.size(); ++i)
            maxima[i] = std::max(maxima[i], sample.bytes[i]);
    }
    return maxima;
}

} // namespace pyrometer::record
