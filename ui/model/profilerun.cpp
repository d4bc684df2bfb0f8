#include "ui/model/profilerun.h"

#include "core/torch/accuracy.h"
#include "core/torch/traceexport.h"

#include <algorithm>
#include <chrono>

namespace pyrometer::ui {
ProgressReporter subRange(ProgressReporter &parent, int from, int to)
{
    return ProgressReporter([&parent, from, to](int permille) { parent.reportPermille(from + (to - from) * permille / 1000); },
                            std::chrono::milliseconds(0));
}

int profiledIterations(int timedIterations)
{
    return std::clamp(timedIterations, 1, 10);
}

Result<ProfileRun> runProfile(const ProfileRequest &request, ProgressReporter &progress, const StopToken &stop)
{
    const std::string file = request.model.filename().string();
    torch::RunOptions options;
    const auto files = torch::dataFilesIn(request.inputSpec, request.model.parent_path());
    if (!files.ok())
        return Error{file + ": inputs \"" + request.inputSpec + "\": " + files.error().message};
    if (files.value()) {
        // Samples saved by torch.save: profiled at their shapes (a batch of them).
        auto inputs = torch::inputsOfData(files.value()->data);
        if (!inputs.ok())
            return inputs.error();
        options.inputs = std::move(inputs).value();
    } else if (!request.inputSpec.empty()) {
        auto parsed = torch::parseInputSpecs(request.inputSpec);
        if (!parsed.ok())
            return Error{file + ": inputs \"" + request.inputSpec + "\": " + parsed.error().message};
        options.inputs = std::move(parsed).value();
    } else if (torch::recordedInputSpec(request.model).empty()) {
        return Error{file + ": no input shapes given and the model records none; type them under Inputs, such as 1x3x224x224"};
    }
    options.warmup = std::max(0, request.warmup);
    options.iterations = std::max(1, request.iterations);
    options.threads = std::max(0, request.threads);
    options.mode = request.mode;

    ProfileRun run;
    {
        auto part = subRange(progress, 0, 600);
        auto latency = torch::measureLatency(request.model, options, part, stop);
        if (!latency.ok())
            return latency.error();
        run.latency = std::move(latency).value();
    }
    {
        auto profileOptions = options;
        profileOptions.warmup = 2; // the latency runs above did the real warm-up, in another session
        profileOptions.iterations = profiledIterations(options.iterations);
        auto part = subRange(progress, 600, 950);
        auto profile = torch::profileLayers(request.model, profileOptions, part, stop);
        if (!profile.ok())
            return profile.error();
        run.profile = std::move(profile).value();
    }
    if (stop.stopRequested())
        return Error{file + ": cancelled"};
    if (!request.traceDirectory.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(request.traceDirectory, ignored);
        const auto stamp = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
        const auto path = request.traceDirectory / (request.model.stem().string() + "-" + std::to_string(stamp) + ".pt.trace.json");
        auto written = torch::writeChromeTrace(path, run.profile.events, file);
        if (!written.ok())
            return written.error();
        run.tracePath = std::move(written).value();
    }
    return run;
}

} // namespace pyrometer::ui
