#include "ui/compare/comparerun.h"

#include "core/analysis/flamediff.h"
#include "core/analysis/flametree.h"
#include "core/analysis/traceindex.h"
#include "core/torch/layerprofile.h"
#include "ui/model/profilerun.h"

namespace pyrometer::ui {
Result<VariantsRun> runVariants(const VariantsRequest &request, ProgressReporter &progress, const StopToken &stop)
{
    const std::string file = request.model.filename().string();
    torch::CompareOptions options;
    if (!request.inputSpec.empty()) {
        auto inputs = torch::parseInputSpecs(request.inputSpec);
        if (!inputs.ok())
            return Error{file + ": inputs \"" + request.inputSpec + "\": " + inputs.error().message};
        options.inputs = std::move(inputs).value();
    }
    auto variants = torch::parseVariants(request.variants);
    if (!variants.ok())
        return Error{file + ": variants: " + variants.error().message};
    options.variants = std::move(variants).value();
    options.warmup = request.warmup;
    options.iterations = request.iterations;

    VariantsRun run;
    {
        auto reporter = subRange(progress, 0, request.layers ? 500 : 1000);
        auto report = torch::compareVariants(request.model, options, {}, reporter, stop);
        if (!report.ok())
            return report.error();
        run.report = std::move(report).value();
    }
    if (!request.layers)
        return run;
    torch::RunOptions profileOptions;
    profileOptions.inputs = run.report.inputs;
    profileOptions.warmup = 2;
    profileOptions.iterations = 3;
    const auto &rows = run.report.rows;
    const int count = int(rows.size());
    std::vector<torch::LayerRow> baseline;
    for (int i = 0; i < count; ++i) {
        if (stop.stopRequested())
            return Error{file + ": cancelled"};
        auto reporter = subRange(progress, 500 + 500 * i / count, 500 + 500 * (i + 1) / count);
        if (i > 0 && !rows[std::size_t(i)].ok())
            continue;
        auto profile = torch::profileVariant(request.model, rows[std::size_t(i)].variant, profileOptions, reporter, stop);
        if (i == 0) {
            if (!profile.ok())
                return profile.error();
            baseline = profile->rows;
            continue;
        }
        VariantLayers layers;
        layers.variant = rows[std::size_t(i)].name;
        if (profile.ok())
            layers.deltas = torch::layerDeltas(baseline, profile->rows);
        else
            layers.error = profile.error().message;
        run.layers.push_back(std::move(layers));
    }
    return run;
}

Result<TracesComparison> diffLoadedTraces(const std::shared_ptr<const trace::Trace> &base, const std::shared_ptr<const trace::Trace> &other,
                                          ProgressReporter &progress, const StopToken &stop)
{
    const auto baseIndex = analysis::buildTraceIndex(*base, &stop);
    progress.reportPermille(300);
    const auto otherIndex = baseIndex ? analysis::buildTraceIndex(*other, &stop) : nullptr;
    progress.reportPermille(600);
    if (!baseIndex || !otherIndex || stop.stopRequested())
        return Error{"trace comparison cancelled"};
    TracesComparison comparison;
    comparison.diff = analysis::diffTraces(*baseIndex, *otherIndex, &stop);
    progress.reportPermille(800);
    analysis::FlameOptions options;
    options.threadRoots = false;
    const auto tree = [&](const analysis::TraceIndex &index) {
        return analysis::mergeProfilerSteps(analysis::buildFlameTree(index, options, &stop));
    };
    comparison.flame = std::make_shared<const analysis::FlameGraph>(
        analysis::prepareDiffGraph(analysis::diffFlameTrees(tree(*baseIndex), tree(*otherIndex))));
    if (stop.stopRequested())
        return Error{"trace comparison cancelled"};
    return comparison;
}

} // namespace pyrometer::ui
