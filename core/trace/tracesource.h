#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::trace {

struct DistributedInfo;

// What a path given by the user (command line, File menu, drag and drop) holds, judged by its
// name and type only; the loaders check the content.
enum class InputKind {
    Missing,      // nothing at that path
    TraceFile,    // *.json or *.json.gz: a Chrome trace
    LogDirectory, // a directory: a TensorBoard log dir of runs
    Model,        // any other file (a model is expected: TorchScript, a .pt2, a Python file), or "model.py:factory"
};

InputKind classifyInput(const std::filesystem::path &path);

// True for names a trace loader accepts: "*.json" and "*.json.gz".
bool isTraceFileName(std::string_view fileName);

// The parts of a TensorBoard trace name "<worker>[.<span>].pt.trace.json[.gz]".
// The span is the numeric part before ".pt.trace.json" when it is a time, as torch's
// tensorboard_trace_handler writes it (time.time_ns(), or milliseconds in older releases: 10
// digits or more); a shorter number (a process id, a counter) stays part of the worker name.
// nullopt for names that do not end in ".pt.trace.json[.gz]".
struct TraceFileName {
    std::string worker;
    std::string span; // empty when the name has none
    bool operator==(const TraceFileName &) const = default;
};
std::optional<TraceFileName> parseTraceFileName(std::string_view fileName);

// When a span was recorded, in nanoseconds since 1970: spans are seconds (10 digits),
// milliseconds (13), microseconds (16) or nanoseconds (19) since then. nullopt for anything
// else (empty, not a number, another length).
std::optional<std::int64_t> spanTimeNs(std::string_view span);

// One trace file of a run.
struct RunFile {
    std::string worker;
    std::string span;
    std::filesystem::path path;
    bool operator==(const RunFile &) const = default;
};

// A directory that holds trace files, named by its path relative to the log directory (the
// log directory itself by its own name). Files are sorted by worker, then span.
struct LogRun {
    std::string name;
    std::vector<RunFile> files;
    bool operator==(const LogRun &) const = default;
};

// Every run below logDir (recursively; symlinked directories are not followed), sorted by
// name: a TensorBoard log directory, or any folder of traces. Files named
// "*.pt.trace.json[.gz]" are traces by their name; other "*.json[.gz]" files are traces when
// their first bytes hold a trace's keys ("traceEvents", or the events of the bare-array form),
// and take their name, less the extension, as worker. Empty when logDir holds no trace files;
// unreadable subdirectories are skipped.
std::vector<LogRun> discoverRuns(const std::filesystem::path &logDir);

// Every trace file of those runs, in run order.
std::vector<std::filesystem::path> listTraceFiles(const std::filesystem::path &logDir);

// Whether the first bytes of file (inflated when it is gzip) look like a Chrome trace.
bool looksLikeTrace(const std::filesystem::path &file);

// The distributedInfo of a rank's trace from its first bytes (inflated when gzip), without
// loading it: false when they hold none (it may come after the events, as in older torch).
// (No <compare> here: moc reads this header before Qt's in the window's headers.)
bool peekDistributedInfo(const std::filesystem::path &file, DistributedInfo &info);

// What to say about a directory that holds no traces.
std::string noTracesMessage(const std::string &logDir);

} // namespace pyrometer::trace
