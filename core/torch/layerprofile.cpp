#include "core/torch/layerprofile.h"

#include "core/torch/modelfile.h"
#include "core/torch/session.h"

#include <algorithm>

namespace pyrometer::torch {

Result<ProfileReport> profileLayers(const std::filesystem::path &path, const RunOptions &options, ProgressReporter &progress,
                                    const StopToken &stop)
{
    const auto cancelled = [&] { return Error{path.string() + ": cancelled"}; };
    auto opened = ModelSession::open(path, options.inputs, options.mode, options.threads);
    if (!opened.ok())
        return opened.error();
    auto &session = *opened.value();
    const int warmup = std::max(1, options.warmup);
    const int iterations = std::max(1, options.iterations);
    const auto total = std::uint64_t(warmup + 2 + iterations);
    for (int i = 0; i < warmup; ++i) {
        if (stop.stopRequested())
            return cancelled();
        if (auto error = session.run())
            return *error;
        progress.report(std::uint64_t(i + 1), total);
    }
    if (stop.stopRequested())
        return cancelled();
    auto ops = session.recordOps();
    if (!ops.ok())
        return ops.error();
    auto model = inspectModel(path);
    if (!model.ok())
        return model.error();
    auto flops = summarizeFlops(model.value(), ops.value());
    flops.inputs = session.inputs();
    progress.report(std::uint64_t(warmup + 2), total);
    // Profile in slices so that cancel stays quick; the slices' events are concatenated.
    RecordedProfile events;
    for (int done = 0; done < iterations;) {
        if (stop.stopRequested())
            return cancelled();
        const int slice = std::min(iterations - done, 5);
        auto recorded = session.recordProfile(slice, done + 1);
        if (!recorded.ok())
            return recorded.error();
        auto &part = recorded.value();
        events.ops.insert(events.ops.end(), part.ops.begin(), part.ops.end());
        events.memory.insert(events.memory.end(), part.memory.begin(), part.memory.end());
        done += slice;
        events.iterations = done;
        progress.report(std::uint64_t(warmup + 2 + done), total);
    }
    auto report = summarizeProfile(flops, events);
    report.mode = session.mode();
    progress.finish();
    return report;
}

} // namespace pyrometer::torch
