#include "core/record/memorycategories.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <fstream>
#include <optional>
#include <sstream>

namespace pyrometer::record {

namespace {

constexpr std::array<std::string_view, kMemoryCategoryCount> kKeys{
    "parameters", "gradients", "optimizer_state", "activations", "inputs", "temporaries", "other"};
constexpr std::array<std::string_view, kMemoryCategoryCount> kLabels{
    "Parameters", "Gradients", "Optimizer state", "Activations", "Inputs", "Temporaries", "Other"};

// A JSON number as an integer, when it is one in range: nlohmann's get<>() casts a float
// whatever its value, which is undefined beyond the type's range.
std::optional<std::int64_t> integerOf(const nlohmann::json &value)
{
    if (value.is_number_unsigned())
        return value.get<std::uint64_t>() <= std::uint64_t(INT64_MAX) ? std::optional(value.get<std::int64_t>())
                                                                      : std::nullopt;
    if (value.is_number_integer())
        return value.get<std::int64_t>();
    if (value.is_number_float()) {
        const double number = value.get<double>();
        if (number >= -9223372036854775808.0 && number < 9223372036854775808.0)
            return static_cast<std::int64_t>(number);
    }
    return std::nullopt;
}

// An optional integer field: fallback when absent, nullopt when it is not an integer in [low, high].
std::optional<std::int64_t> integerField(const nlohmann::json &object, const char *key, std::int64_t fallback,
                                         std::int64_t low = INT64_MIN, std::int64_t high = INT64_MAX)
{
    const auto found = object.find(key);
    if (found == object.end())
        return fallback;
    const auto value = integerOf(*found);
    return value && *value >= low && *value <= high ? value : std::nullopt;
}

Error damaged(const std::filesystem::path &path, const std::string &what)
{
    return Error{path.string() + ": a damaged memory file (" + what + ")"};
}

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

// A field of the wrong type (value() throws) is a damaged file, as is a number out of its range.
Result<MemoryCategories> loadMemoryCategories(const std::filesystem::path &path)
try {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path.string() + ": cannot be read"};
    std::stringstream text;
    text << in.rdbuf();
    const auto json = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object())
        return Error{path.string() + ": not a memory file (not a JSON object)"};
    if (json.value("format", nlohmann::json()) != 1)
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
    const auto baseline = integerField(json, "baseline_bytes", 0);
    if (!baseline)
        return damaged(path, "baseline_bytes is not an integer");
    result.baselineBytes = *baseline;
    result.samples.reserve(samples->size());
    for (const auto &entry : *samples) {
        const auto bytes = entry.find("bytes");
        if (!entry.is_object() || bytes == entry.end() || !bytes->is_array() || bytes->size() != column.size())
            return Error{path.string() + ": sample " + std::to_string(result.samples.size()) +
                         " does not have one size per category"};
        MemorySample sample;
        sample.seconds = entry.value("t", 0.0);
        const auto step = integerField(entry, "step", -1, INT_MIN, INT_MAX);
        if (!step)
            return damaged(path,
                           "sample " + std::to_string(result.samples.size()) + ": its step is not a number of steps");
        sample.step = int(*step);
        if (const auto named = entry.find("profiler_step"); named != entry.end() && named->is_number_integer())
            sample.profilerStep = named->get<int>();
        sample.phase = entry.value("phase", std::string());
        sample.recorded = entry.value("recorded", false);
        for (std::size_t i = 0; i < column.size(); ++i) {
            if (!(*bytes)[i].is_number())
                return Error{path.string() + ": sample " + std::to_string(result.samples.size()) +
                             " has a size that is not a number"};
            const auto size = integerOf((*bytes)[i]);
            auto &category = sample.bytes[std::size_t(column[i])];
            if (!size || __builtin_add_overflow(category, *size, &category))
                return damaged(path, "sample " + std::to_string(result.samples.size()) + ": a size out of range");
        }
        // total() adds the categories up: its sums fit in 64 bits too.
        std::int64_t total = 0;
        for (const auto value : sample.bytes)
            if (__builtin_add_overflow(total, value, &total))
                return damaged(path, "sample " + std::to_string(result.samples.size()) + ": a size out of range");
        result.samples.push_back(std::move(sample));
    }
    return result;
} catch (const nlohmann::json::exception &error) {
    return damaged(path, error.what());
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
