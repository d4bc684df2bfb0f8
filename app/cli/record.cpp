// pyrometer-cli record [--python PATH] [--steps N] [--out DIR] -- script.py ARGS: runs a PyTorch
// program under the profiler with no change to it, and prints the trace's path.
#include "app/cli/callcontext.h"
#include "app/cli/commands.h"
#include "app/cli/interrupt.h"
#include "app/cli/output.h"
#include "core/record/memorycategories.h"
#include "core/record/recorder.h"
#include "core/util/format.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <unistd.h>

namespace pyrometer::cli {
namespace {

namespace fs = std::filesystem;

// The program failed (raised, exited with an error status, was killed) after its traces were
// written: they are kept and printed, and the status says it failed. Nothing recorded is 2.
constexpr int kProgramFailed = kFinding;

struct RecordCommandOptions {
    record::RecordOptions record;
    std::vector<std::string> program;
    std::string mark = "auto";
    std::vector<std::string> environment;
    bool noMemory = false;
    bool noShapes = false;
    Format format = Format::Table;
};

// What a stop is waiting for, said once as it changes: the step in progress, then the write.
class StopNotice {
public:
    // The line to print for progress, or empty when nothing changed.
    std::string next(const record::RecordProgress &progress)
    {
        if (progress.abandoning)
            return say(State::Dropping, "pyrometer: ending the program now; a trace being written is dropped");
        if (!progress.stopping)
            return {};
        if (progress.writing)
            return say(State::Writing, "pyrometer: cancelling: waiting for the trace of the " +
                                           std::to_string(progress.recorded) +
                                           " recorded steps to be written (Ctrl+C again drops it)");
        if (progress.recorded == 0)
            return say(State::Stopping, "pyrometer: cancelling before a step was recorded: the program is ended");
        return say(State::Stopping, "pyrometer: cancelling: the record ends with the step in progress, then is written "
                                    "(Ctrl+C again drops it)");
    }

private:
    enum class State { Running, Stopping, Writing, Dropping };
    std::string say(State state, std::string line)
    {
        if (state <= m_state)
            return {};
        m_state = state;
        return line;
    }
    State m_state = State::Running;
};

std::string progressLine(const record::RecordProgress &progress)
{
    char text[160];
    std::snprintf(text, sizeof text, "pyrometer: step %d, recorded %d of %d, %.1f s", progress.steps, progress.recorded,
                  progress.asked, progress.elapsedSeconds);
    return text;
}

nlohmann::json outcomeJson(const record::RecordOutcome &outcome)
{
    nlohmann::json json;
    json["traces"] = nlohmann::json::array();
    for (const auto &trace : outcome.traces)
        json["traces"].push_back(trace.string());
    json["memory"] = nlohmann::json::array();
    for (const auto &memory : outcome.memoryFiles)
        json["memory"].push_back(memory.string());
    json["steps"] = outcome.steps;
    json["recorded"] = outcome.recorded;
    json["asked"] = outcome.asked;
    json["seconds"] = outcome.elapsedSeconds;
    json["exit_code"] = outcome.exit.exitCode;
    json["cancelled"] = outcome.exit.stopped;
    json["program_failure"] =
        outcome.programFailure.empty() ? nlohmann::json() : nlohmann::json(outcome.programFailure);
    if (outcome.interpreter) {
        json["torch"] = outcome.interpreter->torchVersion;
        json["python"] = outcome.interpreter->executable;
    }
    // The peak's composition, as the Memory page shows it.
    if (!outcome.memoryFiles.empty()) {
        if (const auto memory = record::loadMemoryCategories(outcome.memoryFiles.back())) {
            const auto peak = record::memoryPeak(memory.value());
            if (peak.found()) {
                nlohmann::json composition;
                for (std::size_t i = 0; i < record::kMemoryCategoryCount; ++i)
                    composition[std::string(record::memoryCategoryKey(record::MemoryCategory(i)))] =
                        peak.sample.bytes[i];
                json["memory_peak"] = {{"step", peak.sample.step},
                                       {"profiler_step", peak.sample.profilerStep},
                                       {"phase", peak.sample.phase},
                                       {"bytes", composition},
                                       {"source", memory->source},
                                       {"resolution", memory->resolution}};
            }
        }
    }
    return json;
}

int runRecord(RecordCommandOptions &options)
{
    if (options.program.empty())
        return badInput(
            "record needs a program: pyrometer-cli record [OPTIONS] -- script.py ARGS (or -- -m module ARGS)");
    auto &record = options.record;
    if (options.program.front() == "-m") {
        if (options.program.size() < 2)
            return badInput("record: -m needs a module name");
        record.asModule = true;
        record.script = options.program[1];
        record.arguments.assign(options.program.begin() + 2, options.program.end());
    } else {
        record.script = options.program.front();
        record.arguments.assign(options.program.begin() + 1, options.program.end());
        std::error_code error;
        if (!fs::is_regular_file(record.script, error))
            return badInput(record.script + ": no such script");
    }
    const auto mark = record::parseStepMark(options.mark);
    if (!mark)
        return badInput(mark.error().message);
    record.mark = mark.value();
    if (record.steps < 1 || record.repeat < 1 || record.skip < 0 || record.warmup < 0)
        return badInput("record: --steps and --repeat must be at least 1, --skip and --warmup at least 0");
    for (const auto &entry : options.environment) {
        auto variable = record::parseEnvironmentEntry(entry);
        if (!variable)
            return badInput("record: --env takes NAME=VALUE, not '" + entry + "'");
        record.environment.push_back(std::move(*variable));
    }
    record.profileMemory = !options.noMemory;
    record.recordShapes = !options.noShapes;
    if (record.outputDirectory.empty())
        record.outputDirectory = fs::path("pyrometer-logs") / fs::path(record.script).stem();

    const RunStop stop;

    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    bool progressShown = false;
    const auto clearProgress = [&] {
        if (progressShown)
            cliErr() << "\r\033[K" << std::flush;
        progressShown = false;
    };
    record::RecordCallbacks callbacks;
    record::RecordProgress lastProgress;
    callbacks.onOutput = [&](record::OutputStream stream, std::string_view chunk) {
        clearProgress();
        auto &out = stream == record::OutputStream::Stdout && options.format != Format::Json ? cliOut() : cliErr();
        out.write(chunk.data(), std::streamsize(chunk.size()));
        out.flush();
    };
    StopNotice notice;
    callbacks.abandoned = [&] { return stop.abandoned(); };
    callbacks.onProgress = [&](const record::RecordProgress &progress) {
        if (const auto line = notice.next(progress); !line.empty()) {
            clearProgress();
            cliErr() << line << '\n' << std::flush;
        }
        if (!terminal)
            return;
        // Redrawn in place on a terminal, under the program's output.
        if (progress.steps != lastProgress.steps || progress.recorded != lastProgress.recorded ||
            int(progress.elapsedSeconds * 2) != int(lastProgress.elapsedSeconds * 2)) {
            cliErr() << "\r\033[K" << progressLine(progress) << std::flush;
            progressShown = true;
        }
        lastProgress = progress;
    };
    callbacks.onTrace = [&](const fs::path &trace) {
        clearProgress();
        cliErr() << "pyrometer: trace written: " << trace.string() << '\n';
    };
    const auto outcome = record::recordProgram(record, callbacks, stop.token());
    clearProgress();
    if (!outcome)
        return badInput(outcome.error().message);
    if (!outcome->recordedSomething()) {
        cliErr() << "pyrometer-cli: " << record::failureReport(outcome.value()) << '\n';
        return kBadInput;
    }
    // Traces kept, but the program failed after them: its traces are printed, and the status
    // says it failed, as a script that runs the program sees it.
    const int status = outcome->programFailed() ? kProgramFailed : kSuccess;
    if (outcome->programFailed())
        cliErr() << "pyrometer-cli: " << record::failureReport(outcome.value()) << '\n';
    else if (outcome->exit.stopped)
        cliErr() << "pyrometer-cli: " << record::cancelSummary(outcome.value(), record) << '\n';
    if (options.format == Format::Json) {
        writeJson(cliOut(), outcomeJson(outcome.value()));
        return status;
    }
    cliErr() << "pyrometer: " << outcome->recorded << " steps recorded of " << outcome->steps << " taken, in "
             << formatDuration(std::int64_t(outcome->elapsedSeconds * 1e9)) << '\n';
    for (const auto &trace : outcome->traces)
        cliOut() << trace.string() << '\n';
    return status;
}

} // namespace

void setupRecord(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<RecordCommandOptions>();
    auto &record = options->record;
    command.add_option("--python", record.python, "The interpreter that runs the program (a venv's or conda's python)")
        ->capture_default_str();
    command.add_option("--out", record.outputDirectory,
                       "The TensorBoard log folder the trace is written to (default: pyrometer-logs/SCRIPT)");
    command.add_option("--steps", record.steps, "Steps recorded")->capture_default_str();
    command.add_option("--skip", record.skip, "Steps left out at the start")->capture_default_str();
    command.add_option("--warmup", record.warmup, "Steps profiled but not kept, before the record")
        ->capture_default_str();
    command.add_option("--repeat", record.repeat, "Records taken, each a new trace in the same run")
        ->capture_default_str();
    command
        .add_option("--mark", options->mark,
                    "What marks a step: auto (the optimizer's step, else the outermost module's forward), optimizer, "
                    "forward, or time (a window of --duration seconds after --delay)")
        ->capture_default_str();
    command.add_option("--delay", record.delaySeconds, "Time window: seconds before it opens");
    command.add_option("--duration", record.durationSeconds, "Time window: seconds recorded")->capture_default_str();
    command.add_flag("--cuda", record.cuda, "Record CUDA kernels too (where the interpreter's torch sees a GPU)");
    command.add_flag("--with-stack", record.withStack, "Record Python stacks");
    command.add_flag("--no-memory", options->noMemory, "Leave out profile_memory");
    command.add_flag("--no-shapes", options->noShapes, "Leave out record_shapes");
    command.add_flag("--keep-running", record.keepRunning, "Let the program run to its end after the last record");
    command.add_option("-C,--cwd", record.workingDirectory, "The folder the program runs in (default: this one)");
    command.add_option("--env", options->environment, "NAME=VALUE set for the program (repeatable)");
    addFormatOption(command, &options->format);
    command.add_option("PROGRAM", options->program, "-- script.py ARGS, or -- -m module ARGS");
    command.callback([options, exitCode] { *exitCode = runRecord(*options); });
}

} // namespace pyrometer::cli
