#pragma once

#include "core/util/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::session {

// What a .pyrometer file holds: the open documents and what the user made of them. Paths are
// absolute; times are trace nanoseconds. Pages that come later (comparison, sweeps, flame
// graph) keep their state under `pages`, keyed by page name, without a format change.

// A named time position (startNs == endNs) or range in one trace.
struct Bookmark {
    std::string trace; // the trace's path
    std::string name;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    bool isPosition() const { return startNs == endNs; }
    bool operator==(const Bookmark &) const = default;
};

// The range selected in a trace's timeline.
struct RangeSelection {
    std::string trace;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    bool operator==(const RangeSelection &) const = default;
};

// The summary of the last profile run of a model (times in ms).
struct RunSummary {
    std::string model;
    std::string inputs; // "1x3x224x224"
    std::string mode;   // "inference" or "train"
    int threads = 0;
    int warmup = 0;
    int iterations = 0;
    double coldMs = 0;
    double meanMs = 0;
    double stdMs = 0;
    double p50Ms = 0;
    double p90Ms = 0;
    double p99Ms = 0;
    double throughputPerSecond = 0;
    double forwardMs = 0;
    std::int64_t peakMemoryBytes = 0;
    double totalFlops = 0;
    std::string tracePath; // the recorded trace, when written
    bool operator==(const RunSummary &) const = default;
};

// An open distributed job: its rank trace files, reopened together as one job.
struct SessionJob {
    std::vector<std::string> files;
    bool operator==(const SessionJob &) const = default;
};

struct SessionState {
    static constexpr int kFormatVersion = 1;

    std::vector<std::string> traces;
    std::vector<std::string> models;
    std::vector<SessionJob> jobs;
    std::string currentTrace; // shown in the timeline
    std::string currentPage;  // "overview", "timeline", ...
    std::vector<RangeSelection> ranges;
    std::vector<Bookmark> bookmarks;
    std::vector<RunSummary> runs;
    // The Compare page's setup (baseline, other, options): written and read by that page.
    nlohmann::json comparison = nlohmann::json::object();
    // Any other page's state, by page name.
    nlohmann::json pages = nlohmann::json::object();

    bool isEmpty() const { return traces.empty() && models.empty() && jobs.empty(); }
    bool operator==(const SessionState &) const = default;
};

nlohmann::json toJson(const SessionState &state);
// Refuses what is not a session (no "pyrometer_session" version) or comes from a newer
// format; unknown keys are ignored. `source` names the file in errors.
Result<SessionState> fromJson(const nlohmann::json &json, const std::string &source);

// Written atomically: a crash leaves the previous file or the new one.
Result<std::filesystem::path> writeSession(const std::filesystem::path &path, const SessionState &state);
Result<SessionState> readSession(const std::filesystem::path &path);

// The traces, models and job files of state that no longer exist on disk.
std::vector<std::string> missingFiles(const SessionState &state);

} // namespace pyrometer::session
