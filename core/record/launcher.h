#pragma once

#include "core/util/result.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pyrometer::record {

// What marks a step of the program.
enum class StepMark {
    Auto,      // the optimizer's step where there is an optimizer, else the outermost forward
    Optimizer, // each optimizer step
    Forward,   // each call of an outermost nn.Module's forward
    Time,      // no steps: a time window (delaySeconds, then durationSeconds)
};

// How to record a program: everything the Record dialog and `pyrometer-cli record` ask.
struct RecordOptions {
    std::string python = "python3"; // the user's interpreter (a venv's or conda's python)
    std::string script;             // a .py file, or a module name when asModule
    bool asModule = false;          // -m module
    std::vector<std::string> arguments;
    std::filesystem::path workingDirectory; // empty: the current folder
    std::vector<std::pair<std::string, std::string>> environment;
    std::filesystem::path outputDirectory; // the TensorBoard log folder
    StepMark mark = StepMark::Auto;
    int skip = 1;
    int warmup = 1;
    int steps = 5;
    int repeat = 1;
    double delaySeconds = 0;
    double durationSeconds = 5;
    bool cpu = true;
    bool cuda = false;
    bool recordShapes = true;
    bool profileMemory = true;
    bool withStack = false;
    bool withModules = true;
    bool keepRunning = false; // let the program run on after the last record
    bool operator==(const RecordOptions &) const = default;
};

// An environment entry "NAME=VALUE" as its name and value; nothing when no name precedes '='.
std::optional<std::pair<std::string, std::string>> parseEnvironmentEntry(std::string_view entry);

// "auto", "optimizer", "forward", "time" and back.
std::string stepMarkName(StepMark mark);
Result<StepMark> parseStepMark(const std::string &text);

// The launcher script that ships with Pyrometer: $PYROMETER_RECORDER, else installed beside the
// executable (../share/pyrometer/recorder/pyrometer_record.py), else the source tree it was
// built from. An Error says where it looked.
Result<std::filesystem::path> findLauncher();

// A file shipped with Pyrometer for the user's interpreter: $variable, else installed beside the
// executable (../share/pyrometer/<installed>), else source (the build tree's copy; may be null).
Result<std::filesystem::path> findShippedFile(const char *variable, const std::filesystem::path &installed, const char *source);

// The interpreter's command line that records the program.
std::vector<std::string> launcherCommand(const std::filesystem::path &launcher, const RecordOptions &options);

// The command line that asks the interpreter what its torch offers (prints one JSON line).
std::vector<std::string> probeCommand(const std::filesystem::path &launcher, const std::string &python);

// The folder the program runs in: the option's, else the current one.
std::filesystem::path workingDirectoryFor(const RecordOptions &options);

} // namespace pyrometer::record
