#pragma once
// What the recorder's tests share: the fixture programs, records run with Debian's python3-torch,
// and what a recorded trace holds.
#include "core/record/recorder.h"
#include "core/trace/loader.h"

#include <QTemporaryDir>
#include <QtGlobal>

#include <chrono>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::record::testing {

inline const std::string kPython = PYROMETER_TEST_PYTHON;

inline std::string program(const char *name)
{
    return std::string(PYROMETER_FIXTURES_DIR) + "/programs/" + name;
}

inline int countSlices(const trace::Trace &trace, std::string_view prefix)
{
    int count = 0;
    for (const auto &track : trace.tracks)
        for (const auto name : track.eventName)
            if (trace.string(name).starts_with(prefix))
                ++count;
    return count;
}

// The ProfilerStep# slices of a trace file, or -1 when it does not load.
inline int profilerStepsIn(const std::filesystem::path &path)
{
    const auto trace = trace::loadTrace(path);
    return trace ? countSlices(*trace.value(), "ProfilerStep#") : -1;
}

struct Recorded {
    RecordOutcome outcome;
    std::string output;
    std::vector<RecordProgress> progress;
};

inline Recorded recordRun(RecordOptions options, const StopToken &stop = {},
                          std::function<void(const RecordProgress &)> onProgress = {},
                          StopPolicy policy = StopPolicy{std::chrono::milliseconds(3000),
                                                         std::chrono::milliseconds(2000)})
{
    Recorded result;
    RecordCallbacks callbacks;
    callbacks.onOutput = [&](OutputStream, std::string_view chunk) { result.output.append(chunk); };
    callbacks.onProgress = [&](const RecordProgress &progress) {
        if (result.progress.empty() || !(result.progress.back() == progress))
            result.progress.push_back(progress);
        if (onProgress)
            onProgress(progress);
    };
    auto outcome = recordProgram(options, callbacks, stop, policy);
    if (!outcome)
        qFatal("%s", outcome.error().message.c_str());
    result.outcome = std::move(outcome).value();
    return result;
}

inline RecordOptions optionsFor(const QTemporaryDir &dir, const char *script)
{
    RecordOptions options;
    options.python = kPython;
    options.script = program(script);
    options.outputDirectory = dir.path().toStdString();
    options.skip = 1;
    options.warmup = 1;
    options.steps = 3;
    return options;
}

} // namespace pyrometer::record::testing
