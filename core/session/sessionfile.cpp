#include "core/session/sessionfile.h"

#include "core/util/atomicfile.h"

#include <optional>
#include <system_error>

namespace pyrometer::session {

// Missing keys keep their defaults, so files from older versions still read.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Bookmark, trace, name, startNs, endNs)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SessionJob, files)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RangeSelection, trace, startNs, endNs)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RunSummary, model, inputs, mode, threads, warmup, iterations, coldMs, meanMs,
                                                stdMs, p50Ms, p90Ms, p99Ms, throughputPerSecond, forwardMs,
                                                peakMemoryBytes, totalFlops, tracePath)

namespace {
constexpr const char *kVersionKey = "pyrometer_session";

// nlohmann's get<>() casts a float to an integer whatever its value, which is undefined beyond
// the integer's range: a field that T writes as an integer must not be read from a float.
template <typename T> std::optional<std::string> floatForInteger(const nlohmann::json &json, const char *list)
{
    const auto found = json.find(list);
    if (found == json.end() || !found->is_array())
        return std::nullopt;
    const nlohmann::json written = T{};
    for (const auto &entry : *found) {
        if (!entry.is_object())
            continue;
        for (const auto &[key, value] : written.items()) {
            const auto field = entry.find(key);
            if (value.is_number_integer() && field != entry.end() && field->is_number_float())
                return std::string(list) + ": " + key + " is " + field->dump() + ", not an integer";
        }
    }
    return std::nullopt;
}
} // namespace

nlohmann::json toJson(const SessionState &state)
{
    return {{kVersionKey, SessionState::kFormatVersion},
            {"traces", state.traces},
            {"models", state.models},
            {"jobs", state.jobs},
            {"currentTrace", state.currentTrace},
            {"currentPage", state.currentPage},
            {"ranges", state.ranges},
            {"bookmarks", state.bookmarks},
            {"runs", state.runs},
            {"comparison", state.comparison},
            {"pages", state.pages}};
}

Result<SessionState> fromJson(const nlohmann::json &json, const std::string &source)
{
    if (!json.is_object() || !json.contains(kVersionKey) || !json[kVersionKey].is_number_integer())
        return Error{source + ": not a Pyrometer session file"};
    const int version = json[kVersionKey].get<int>();
    if (version > SessionState::kFormatVersion)
        return Error{source + ": written by a newer Pyrometer (session format " + std::to_string(version) + ")"};
    for (const auto &problem :
         {floatForInteger<RangeSelection>(json, "ranges"), floatForInteger<Bookmark>(json, "bookmarks"),
          floatForInteger<RunSummary>(json, "runs")}) {
        if (problem)
            return Error{source + ": malformed session: " + *problem};
    }
    try {
        SessionState state;
        state.traces = json.value("traces", state.traces);
        state.models = json.value("models", state.models);
        state.jobs = json.value("jobs", state.jobs);
        state.currentTrace = json.value("currentTrace", state.currentTrace);
        state.currentPage = json.value("currentPage", state.currentPage);
        state.ranges = json.value("ranges", state.ranges);
        state.bookmarks = json.value("bookmarks", state.bookmarks);
        state.runs = json.value("runs", state.runs);
        if (json.contains("comparison") && json["comparison"].is_object())
            state.comparison = json["comparison"];
        if (json.contains("pages") && json["pages"].is_object())
            state.pages = json["pages"];
        return state;
    } catch (const nlohmann::json::exception &error) {
        return Error{source + ": malformed session: " + error.what()};
    }
}

Result<std::filesystem::path> writeSession(const std::filesystem::path &path, const SessionState &state)
{
    return writeFileAtomically(path, toJson(state).dump(2) + "\n");
}

Result<SessionState> readSession(const std::filesystem::path &path)
{
    auto text = readWholeFile(path);
    if (!text.ok())
        return text.error();
    const auto json = nlohmann::json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded())
        return Error{path.string() + ": not a Pyrometer session file (invalid JSON)"};
    return fromJson(json, path.string());
}

std::vector<std::string> missingFiles(const SessionState &state)
{
    std::vector<std::string> missing;
    std::vector<const std::vector<std::string> *> lists{&state.traces, &state.models};
    for (const auto &job : state.jobs)
        lists.push_back(&job.files);
    for (const auto *list : lists) {
        for (const auto &file : *list) {
            std::error_code error;
            if (!std::filesystem::exists(file, error))
                missing.push_back(file);
        }
    }
    return missing;
}

} // namespace pyrometer::session
