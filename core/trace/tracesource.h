#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::trace {

// What a path given by the user (command line, File menu, drag and drop) holds, judged by its
// name and type only; the loaders check the content.
enum class InputKind {
    Missing,      // nothing at that path
    TraceFile,    // *.json or *.json.gz: a Chrome trace
    LogDirectory, // a directory: a TensorBoard log dir of runs
    Model,        // any other file: a TorchScript model is expected
};

InputKind classifyInput(const std::filesystem::path &path);

// True for names a trace loader accepts: "*.json" and "*.json.gz".
bool isTraceFileName(std::string_view fileName);

// The parts of a TensorBoard trace name "<worker>[.<span>].pt.trace.json[.gz]".
// The span is the optional numeric part before ".pt.trace.json", as the TensorBoard plugin
// reads it; nullopt for names that do not end in ".pt.trace.json[.gz]".
struct TraceFileName {
    std::string worker;
    std::string span; // empty when the name has none
    bool operator==(const TraceFileName &) const = default;
};
std::optional<TraceFileName> parseTraceFileName(std::string_view fileName);

// One trace file of a run.
struct RunFile {
    std::string worker;
    std::string span;
    std::filesystem::path path;
    bool operator==(const RunFile &) const = default;
};

// A directory that holds trace files, named by its path relative to the log directory
// ("." for the log directory itself). Files are sorted by worker, then span.
struct LogRun {
    std::string name;
    std::vector<RunFile> files;
    bool operator==(const LogRun &) const = default;
};

// Every run below logDir (recursively; symlinked directories are not followed), sorted by
// name. Empty when logDir holds no trace files; unreadable subdirectories are skipped.
std::vector<LogRun> discoverRuns(const std::filesystem::path &logDir);

// Every trace file of those runs, in run order.
std::vector<std::filesystem::path> listTraceFiles(const std::filesystem::path &logDir);

// What to say about a directory that holds no traces.
std::string noTracesMessage(const std::string &logDir);

} // namespace pyrometer::trace
