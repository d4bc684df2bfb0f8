#pragma once

#include "core/record/launcher.h"
#include "core/record/process.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::record {

// What an interpreter's torch offers, as the launcher's probe reports it.
struct InterpreterInfo {
    std::string python;     // as given
    std::string executable; // sys.executable
    std::string pythonVersion;
    std::string torchVersion;
    bool cuda = false;
    int cudaDevices = 0;
    bool kineto = false;
    bool optimizerHook = false;  // torch >= 2.0: the global optimizer step hook
    bool memoryTimeline = false; // torch >= 2.1: the profiler's memory categories
    bool operator==(const InterpreterInfo &) const = default;
};

// Why a record did not give a trace.
enum class RecordFailure {
    None,
    CannotStart,       // the interpreter could not be started
    NoTorch,           // the interpreter has no (working) torch
    NoScript,          // the script is not there
    RaisedBeforeStep,  // the program raised before a step was recorded
    NoStep,            // the program ended before a step was recorded
    Killed,            // a signal ended it (not our stop) before its trace was written
    ExitedBeforeTrace, // it exited with an error status before its trace was written
    Cancelled,         // stopped by the user before a trace was complete
    Dropped,           // stopped twice by the user while its trace was written: the write was given up
};

// What the launcher's "error" event said: its kind ("no-torch", "no-script", "raised",
// "no-step") and message. The program's exit status cannot say it, as a program may exit with
// any status, the launcher's own included.
struct LauncherError {
    std::string kind;
    std::string message;
    bool operator==(const LauncherError &) const = default;
};

// How a record went. traces are complete trace files (written whole, then renamed): a
// cancelled or failed record may still have some.
struct RecordOutcome {
    RecordFailure failure = RecordFailure::None;
    std::string message; // for a failure: what happened, naming the interpreter or the script
    // For a record that kept its traces: how the program failed after (it raised, exited with
    // an error status or was killed), naming the script; empty when it ended well or was stopped.
    std::string programFailure;
    std::vector<std::filesystem::path> traces;
    std::vector<std::filesystem::path> memoryFiles; // beside each trace
    int steps = 0;                                  // marked steps the program took
    int recorded = 0;                               // of which recorded
    int asked = 0;
    std::optional<InterpreterInfo> interpreter;
    ProcessExit exit;
    std::vector<std::string> lastLines;      // the program's last lines of output (stdout and stderr)
    std::vector<std::string> lastErrorLines; // its last lines of stderr
    double elapsedSeconds = 0;
    // A trace being written when the program ended was given up (a second stop, or the
    // program killed while writing); its partial files were removed.
    bool droppedWrite = false;

    bool recordedSomething() const { return !traces.empty(); }
    bool programFailed() const { return failure != RecordFailure::None || !programFailure.empty(); }
};

// Progress as the launcher reports it, for a live view.
struct RecordProgress {
    int steps = 0;
    int recorded = 0;
    int asked = 0;
    double elapsedSeconds = 0;
    bool writing = false;    // a record's events are collected and its trace written
    bool stopping = false;   // a stop was asked: the step in progress ends, a trace being written is waited for
    bool abandoning = false; // a second stop: the program is ended now, a trace being written given up
    bool operator==(const RecordProgress &) const = default;
};

struct RecordCallbacks {
    std::function<void(OutputStream, std::string_view)> onOutput;
    std::function<void(const RecordProgress &)> onProgress;          // on each step and about every 100 ms
    std::function<void(const std::filesystem::path &trace)> onTrace; // as soon as a trace is written
    std::function<void(const InterpreterInfo &)> onStarted;
    // Once it returns true (a second Ctrl+C, the dialog's Drop), the program is ended at once,
    // and a trace being written is given up. Until then a stop waits for the write.
    std::function<bool()> abandoned;
};

// Runs options.script (or module) through the launcher in options.python, in a process group of
// its own, and returns what it recorded. stop interrupts the program: it ends the record with the
// step in progress and writes it, a write in progress is waited for (up to
// StopPolicy::finishingLimit), then the program is terminated. callbacks.abandoned ends it at once. Only a launcher
// that cannot be found is an Error: a program that fails is an outcome with its failure and message.
Result<RecordOutcome> recordProgram(const RecordOptions &options, const RecordCallbacks &callbacks,
                                    const StopToken &stop, const StopPolicy &policy = {});

// Asks the interpreter what its torch offers (runs the launcher's --probe). An Error names the
// interpreter: it cannot be started, or it has no torch (with its message).
Result<InterpreterInfo> probeInterpreter(const std::string &python, const StopToken &stop = {});

// Sets outcome.failure and message (nothing kept) or programFailure (traces kept) from how the
// program ended (outcome.exit, traces, steps) and the launcher's error event, if any.
void classifyOutcome(RecordOutcome &outcome, const RecordOptions &options, const LauncherError &launcherError);

// For a record cancelled after it kept steps, what was kept: "train.py: cancelled after 228 of 400
// steps; the 228 recorded are in FILE". Empty for any other outcome.
std::string cancelSummary(const RecordOutcome &outcome, const RecordOptions &options);

// One line for a failed outcome: its message and the program's last error lines.
std::string failureReport(const RecordOutcome &outcome, std::size_t lines = 8);

} // namespace pyrometer::record
