#include "core/record/recorder.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>

namespace pyrometer::record {

namespace {

// The launcher's exit status when the interpreter has no torch (pyrometer_record.py). Only the
// probe reads it: no program of the user's runs there, so no status of theirs can be mistaken.
constexpr int kExitNoTorch = 3;
// How long a launcher that took a cancel may take to end the step in progress: its own
// CANCEL_WAIT_SECONDS (2 s), after which it interrupts the program itself, and a margin.
constexpr double kCancelWaitSeconds = 3.0;

InterpreterInfo interpreterFrom(const nlohmann::json &event, const std::string &python)
{
    InterpreterInfo info;
    info.python = python;
    info.executable = event.value("executable", std::string());
    info.pythonVersion = event.value("python", std::string());
    info.torchVersion = event.value("torch", std::string());
    info.cuda = event.value("cuda", false);
    info.cudaDevices = event.value("cuda_devices", 0);
    info.kineto = event.value("kineto", false);
    info.optimizerHook = event.value("optimizer_hook", false);
    info.memoryTimeline = event.value("memory_timeline", false);
    return info;
}

// A file the launcher names as a trace it is writing: in the output folder, with a partial name.
bool isPartialTraceFile(const std::filesystem::path &path, const std::filesystem::path &outputDirectory)
{
    const auto name = path.filename().string();
    return path.parent_path() == outputDirectory && (name.ends_with(".part.gz") || name.ends_with(".part"));
}

std::string programName(const RecordOptions &options)
{
    return options.asModule ? "-m " + options.script : options.script;
}

std::string lastLine(const std::vector<std::string> &lines)
{
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (it->find_first_not_of(" \t") != std::string::npos)
            return *it;
    return {};
}

std::string withDetail(const std::string &detail)
{
    return detail.empty() ? std::string() : ": " + detail;
}

// How the program ended, said as its own: "raised ValueError: ...", "exited with status 3",
// "was killed by SIGKILL"; empty when it ended well.
std::string programEnd(const RecordOutcome &outcome, const LauncherError &launcherError)
{
    if (launcherError.kind == "raised")
        return "raised " + launcherError.message;
    if (outcome.exit.signal != 0)
        return "was killed by " + signalName(outcome.exit.signal);
    if (outcome.exit.exitCode != 0)
        return "exited with status " + std::to_string(outcome.exit.exitCode);
    return {};
}

} // namespace

void classifyOutcome(RecordOutcome &outcome, const RecordOptions &options, const LauncherError &launcherError)
{
    const auto program = programName(options);
    const auto &exit = outcome.exit;
    const auto steps = std::to_string(outcome.steps);
    if (exit.stopped) {
        if (!outcome.recordedSomething() && outcome.droppedWrite) {
            outcome.failure = RecordFailure::Dropped;
            outcome.message = program + ": cancelled while the trace of its " + std::to_string(outcome.recorded) +
                              " recorded steps was written, and the write was dropped; nothing was kept";
        } else if (!outcome.recordedSomething()) {
            outcome.failure = RecordFailure::Cancelled;
            outcome.message =
                program + ": cancelled after " + steps + " steps, before a record was complete; nothing was kept";
        }
        return;
    }
    // The launcher's own failures: what its error event says, whatever the exit status.
    if (launcherError.kind == "no-torch") {
        outcome.failure = RecordFailure::NoTorch;
        outcome.message = options.python + " has no usable torch" + withDetail(launcherError.message) +
                          "; choose an interpreter (a venv's or conda's python) where `import torch` works";
        return;
    }
    if (launcherError.kind == "no-script") {
        outcome.failure = RecordFailure::NoScript;
        outcome.message = launcherError.message;
        return;
    }
    if (launcherError.kind == "no-step" && !outcome.recordedSomething()) {
        outcome.failure = RecordFailure::NoStep;
        outcome.message = program + " ended after " + steps + " steps, before a step was recorded" +
                          (outcome.steps == 0 ? ": it made no optimizer step and called no nn.Module; record a time "
                                                "window instead"
                                              : ": ask for fewer skipped and warm-up steps");
        return;
    }
    const auto end = programEnd(outcome, launcherError);
    if (end.empty())
        return;
    if (outcome.recordedSomething()) {
        outcome.programFailure = program + " " + end + " after " + std::to_string(outcome.recorded) + " of " +
                                 std::to_string(outcome.asked) + " steps were recorded; " +
                                 (outcome.traces.size() == 1 ? "its trace holds them" : "its traces hold them");
        return;
    }
    if (launcherError.kind == "raised") {
        outcome.failure = RecordFailure::RaisedBeforeStep;
        outcome.message = program + " raised before a step was recorded" + withDetail(launcherError.message) +
                          " (after " + steps + " steps)";
    } else if (exit.signal != 0) {
        outcome.failure = RecordFailure::Killed;
        outcome.message = program + " was killed by " + signalName(exit.signal) + " after " + steps +
                          " steps, before its trace was written";
    } else {
        outcome.failure = RecordFailure::ExitedBeforeTrace;
        outcome.message = program + ": the program exited with status " + std::to_string(exit.exitCode) + " after " +
                          steps + " steps, before its trace was written" + withDetail(lastLine(outcome.lastErrorLines));
    }
}

Result<RecordOutcome> recordProgram(const RecordOptions &options, const RecordCallbacks &callbacks,
                                    const StopToken &stop, const StopPolicy &policy)
{
    auto launcher = findLauncher();
    if (!launcher)
        return launcher.error();
    auto resolved = options;
    std::error_code error;
    if (!resolved.asModule && !resolved.script.empty())
        resolved.script = std::filesystem::absolute(resolved.script, error).string();
    resolved.outputDirectory = std::filesystem::absolute(resolved.outputDirectory, error);

    ProcessSpec spec;
    spec.argv = launcherCommand(launcher.value(), resolved);
    spec.workingDirectory = workingDirectoryFor(resolved);
    spec.environment = resolved.environment;
    spec.environment.emplace_back("PYTHONUNBUFFERED", "1");
    spec.statusChannel = true;

    RecordOutcome outcome;
    outcome.asked = options.mark == StepMark::Time ? 1 : options.steps * options.repeat;
    TailLines all(40);
    TailLines errors(40);
    LauncherError launcherError;
    bool writing = false;
    std::vector<std::filesystem::path> partialFiles; // of the trace being written
    std::optional<double> cancellingSince;
    const auto started = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    const auto abandoned = [&] { return callbacks.abandoned && callbacks.abandoned(); };
    const auto reportProgress = [&] {
        if (callbacks.onProgress)
            callbacks.onProgress(RecordProgress{outcome.steps, outcome.recorded, outcome.asked, elapsed(), writing,
                                                stop.stopRequested(), abandoned()});
    };

    ProcessCallbacks process;
    process.abandoned = abandoned;
    process.onOutput = [&](OutputStream stream, std::string_view chunk) {
        all.append(chunk);
        if (stream == OutputStream::Stderr)
            errors.append(chunk);
        if (callbacks.onOutput)
            callbacks.onOutput(stream, chunk);
    };
    process.onTick = reportProgress;
    // An interrupted launcher that ends its record and writes it is waited for, not terminated.
    process.finishing = [&] {
        return writing || (cancellingSince && elapsed() - *cancellingSince < kCancelWaitSeconds);
    };
    const auto readEvent = [&](const std::string &line) {
        const auto event = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (!event.is_object())
            return;
        const auto kind = event.value("event", std::string());
        if (kind == "start") {
            outcome.interpreter = interpreterFrom(event, options.python);
            if (callbacks.onStarted)
                callbacks.onStarted(*outcome.interpreter);
        } else if (kind == "step") {
            outcome.steps = event.value("step", outcome.steps);
            outcome.recorded = event.value("recorded", outcome.recorded);
            outcome.asked = event.value("asked", outcome.asked);
            reportProgress();
        } else if (kind == "cancelling") {
            cancellingSince = elapsed();
        } else if (kind == "writing") {
            writing = true;
            partialFiles.clear();
            for (const auto &partial : event.value("partial", std::vector<std::string>{}))
                if (isPartialTraceFile(partial, resolved.outputDirectory))
                    partialFiles.emplace_back(partial);
            outcome.recorded = event.value("recorded", outcome.recorded);
            reportProgress();
        } else if (kind == "trace") {
            writing = false;
            partialFiles.clear();
            if (cancellingSince) // its record is written: it ends now, and is given the time to
                cancellingSince = elapsed();
            const std::filesystem::path path = event.value("path", std::string());
            outcome.traces.push_back(path);
            outcome.memoryFiles.emplace_back(event.value("memory", std::string()));
            outcome.recorded = event.value("recorded", outcome.recorded);
            if (callbacks.onTrace)
                callbacks.onTrace(path);
            reportProgress();
        } else if (kind == "error") {
            launcherError = {event.value("kind", std::string()), event.value("message", std::string())};
        } else if (kind == "exit") {
            outcome.steps = event.value("steps", outcome.steps);
            outcome.recorded = event.value("recorded", outcome.recorded);
        }
    };
    // The launcher shares its process with the program, which may write on its channel too: a line
    // that is not one of its events (not JSON, a field of the wrong type) is passed over.
    process.onStatusLine = [&](const std::string &line) {
        try {
            readEvent(line);
        } catch (const nlohmann::json::exception &) {
        }
    };
    auto exit = runProcess(spec, process, stop, policy);
    outcome.elapsedSeconds = elapsed();
    outcome.lastLines = all.lines();
    outcome.lastErrorLines = errors.lines();
    if (!exit) {
        outcome.failure = RecordFailure::CannotStart;
        outcome.message = exit.error().message;
        return outcome;
    }
    outcome.exit = exit.value();
    if (writing) {
        // Ended while it wrote (dropped, or killed): no partial file is left to look like a trace.
        outcome.droppedWrite = true;
        for (const auto &partial : partialFiles)
            std::filesystem::remove(partial, error);
    }
    classifyOutcome(outcome, options, launcherError);
    return outcome;
}

Result<InterpreterInfo> probeInterpreter(const std::string &python, const StopToken &stop)
{
    auto launcher = findLauncher();
    if (!launcher)
        return launcher.error();
    ProcessSpec spec;
    spec.argv = probeCommand(launcher.value(), python);
    std::string output;
    TailLines errors(6);
    ProcessCallbacks callbacks;
    callbacks.onOutput = [&](OutputStream stream, std::string_view chunk) {
        if (stream == OutputStream::Stdout)
            output.append(chunk);
        else
            errors.append(chunk);
    };
    auto exit =
        runProcess(spec, callbacks, stop, StopPolicy{std::chrono::milliseconds(500), std::chrono::milliseconds(500)});
    if (!exit)
        return exit.error();
    const auto lines = errors.lines();
    if (exit->exitCode == kExitNoTorch) {
        const auto line = lastLine(lines);
        return Error{python + " has no usable torch" + (line.empty() ? std::string() : ": " + line)};
    }
    const auto json = nlohmann::json::parse(output, nullptr, false);
    if (exit->exitCode != 0 || !json.is_object()) {
        const auto line = lastLine(lines);
        return Error{python + " did not answer the probe" + (line.empty() ? std::string() : ": " + line)};
    }
    return interpreterFrom(json, python);
}

std::string cancelSummary(const RecordOutcome &outcome, const RecordOptions &options)
{
    if (!outcome.exit.stopped || !outcome.recordedSomething())
        return {};
    const auto recorded = std::to_string(outcome.recorded);
    std::string where = outcome.traces.back().string();
    if (outcome.traces.size() > 1)
        where = "its " + std::to_string(outcome.traces.size()) + " traces, the last " + where;
    if (outcome.recorded >= outcome.asked) // the cancel came while the whole record was written
        return programName(options) + ": cancelled after its record was complete; the " + recorded +
               " steps recorded are in " + where;
    return programName(options) + ": cancelled after " + recorded + " of " + std::to_string(outcome.asked) +
           " steps; the " + recorded + " recorded are in " + where;
}

std::string failureReport(const RecordOutcome &outcome, std::size_t lines)
{
    std::string text = outcome.message.empty() ? outcome.programFailure : outcome.message;
    const auto &source = outcome.lastErrorLines.empty() ? outcome.lastLines : outcome.lastErrorLines;
    const auto from = source.size() > lines ? source.size() - lines : 0;
    if (from < source.size())
        text += "\nlast output:";
    for (auto i = from; i < source.size(); ++i)
        text += "\n  " + source[i];
    return text;
}

} // namespace pyrometer::record
