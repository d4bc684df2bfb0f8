#include "ui/model/profilerun.h"

#include "core/engine/layerrooflines.h"
#include "core/model/accuracy.h"
#include "core/model/traceexport.h"
#include "core/util/factoryname.h"

#include <QStandardPaths>

#include <algorithm>
#include <chrono>

namespace pyrometer::ui {
ProgressReporter subRange(ProgressReporter &parent, int from, int to)
{
    return ProgressReporter([&parent, from, to](int permille) { parent.reportPermille(from + (to - from) * permille / 1000); },
                            std::chrono::milliseconds(0));
}

namespace {

// "<model>-<ms since 1970>": a new name for each run's trace.
std::string traceStem(const std::filesystem::path &model)
{
    const auto stamp = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    const auto factory = parseFactoryName(model.filename().string());
    const auto stem = factory ? factory->file.stem().string() + "-" + factory->function : model.stem().string();
    return stem + "-" + std::to_string(stamp);
}

} // namespace

std::filesystem::path cpuRoofCacheFile()
{
    return std::filesystem::path(QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation).toStdString()) /
           "pyrometer" / "cpu-roof.json";
}

int profiledIterations(int timedIterations)
{
    return std::clamp(timedIterations, 1, 10);
}

std::pair<std::optional<analysis::DeviceRoof>, std::string>
chooseRoof(const Result<std::optional<analysis::DeviceRoof>> &engineRoof,
           const std::optional<analysis::DeviceRoof> &fallback)
{
    if (!engineRoof.ok())
        return {std::nullopt, "no roof: " + engineRoof.error().message};
    if (engineRoof.value())
        return {engineRoof.value(), {}};
    if (fallback)
        return {fallback, {}};
    return {std::nullopt,
            "no roof: the GPU is not in the device table; give its peak and bandwidth in Edit > Preferences > "
            "Roofline"};
}

Result<ProfileRun> runProfile(const ProfileRequest &request, ProgressReporter &progress, const StopToken &stop)
{
    const std::string file = request.model.filename().string();
    model::RunOptions options;
    const auto files = model::dataFilesIn(request.inputSpec, request.model.parent_path());
    if (!files.ok())
        return Error{file + ": inputs \"" + request.inputSpec + "\": " + files.error().message};
    if (files.value()) {
        // Samples saved by torch.save: profiled at their shapes (a batch of them).
        auto inputs = engine::inputsOfData(files.value()->data);
        if (!inputs.ok())
            return inputs.error();
        options.inputs = std::move(inputs).value();
    } else if (!request.inputSpec.empty()) {
        auto parsed = model::parseInputSpecs(request.inputSpec);
        if (!parsed.ok())
            return Error{file + ": inputs \"" + request.inputSpec + "\": " + parsed.error().message};
        options.inputs = std::move(parsed).value();
    } else if (!engine::isPython(engine::resolveEngine(request.engine, request.model)) &&
               engine::recordedInputSpec(request.model).empty()) {
        return Error{file + ": no input shapes given and the model records none; type them under Inputs, such as 1x3x224x224"};
    }
    options.warmup = std::max(0, request.warmup);
    options.iterations = std::max(1, request.iterations);
    options.threads = std::max(0, request.threads);
    options.mode = request.mode;

    ProfileRun run;
    {
        auto profileOptions = options;
        profileOptions.warmup = 2; // the timed runs did the real warm-up
        profileOptions.iterations = profiledIterations(options.iterations);
        // The Python engine writes torch.profiler's own trace (with GPU kernels on CUDA).
        const bool python = engine::isPython(engine::resolveEngine(request.engine, request.model));
        std::filesystem::path traceOut;
        if (python && !request.traceDirectory.empty()) {
            std::error_code ignored;
            std::filesystem::create_directories(request.traceDirectory, ignored);
            traceOut = request.traceDirectory / (traceStem(request.model) + ".pt.trace.json");
        }
        auto part = subRange(progress, 0, 950);
        auto measured = engine::measureAndProfile(request.engine, request.model, options, profileOptions, part, stop, traceOut);
        if (!measured.ok())
            return measured.error();
        run.latency = std::move(measured.value().latency);
        run.profile = std::move(measured.value().profile);
    }
    if (stop.stopRequested())
        return Error{file + ": cancelled"};
    if (!run.profile.trace.empty()) {
        run.tracePath = run.profile.trace;
    } else if (!request.traceDirectory.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(request.traceDirectory, ignored);
        const auto path = request.traceDirectory / (traceStem(request.model) + ".pt.trace.json");
        auto written = model::writeChromeTrace(path, run.profile.events, file);
        if (!written.ok())
            return written.error();
        run.tracePath = std::move(written).value();
    }
    if (request.cpuRoofCache) {
        // A roof that cannot be had leaves the roofline columns unknown, saying why; the profile stands.
        std::tie(run.roof, run.roofNote) =
            chooseRoof(engine::engineRoof(request.engine, request.model, options.threads, *request.cpuRoofCache, stop),
                       request.fallbackRoof);
        if (stop.stopRequested())
            return Error{file + ": cancelled"};
    }
    return run;
}

} // namespace pyrometer::ui
