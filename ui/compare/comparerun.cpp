#include "ui/compare/comparerun.h"

#include "core/analysis/flamediff.h"
#include "core/analysis/flametree.h"
#include "core/analysis/traceindex.h"
#include "core/model/accuracy.h"
#include "core/model/inputshint.h"
#include "core/model/layerprofile.h"
#include "core/model/traceexport.h"
#include "core/trace/loader.h"
#include "ui/model/profilerun.h"
#include "ui/workspace/analyses.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <optional>
#include <unistd.h>

namespace pyrometer::ui {

namespace {

// A run's call tree as a comparison diffs it: threads merged (their names differ between
// runs), steps merged.
analysis::FlameOptions comparedFlameOptions()
{
    analysis::FlameOptions options;
    options.threadRoots = false;
    return options;
}

analysis::FlameTree flameTreeOf(const analysis::TraceIndex &index, const StopToken &stop)
{
    return analysis::mergeProfilerSteps(analysis::buildFlameTree(index, comparedFlameOptions(), &stop));
}

// The operators' call tree of a recorded profile: written as the Chrome trace it exports to,
// read back by the trace loader, so it is the tree the Flame graph page would show.
std::optional<analysis::FlameTree> profileFlameTree(const model::RecordedProfile &events, const StopToken &stop)
{
    static std::atomic<int> serial{0};
    const auto file = std::filesystem::temp_directory_path() /
                      ("pyrometer-variant-" + std::to_string(::getpid()) + "-" + std::to_string(serial++) + ".json");
    std::optional<analysis::FlameTree> tree;
    if (model::writeChromeTrace(file, events, "variant").ok()) {
        if (auto loaded = trace::loadTrace(file); loaded.ok()) {
            if (const auto index = analysis::buildTraceIndex(*loaded.value(), &stop))
                tree = flameTreeOf(*index, stop);
        }
    }
    std::error_code ignored;
    std::filesystem::remove(file, ignored);
    return tree;
}

// A profile's call tree per forward pass: times and calls over its runs divided by their number
// (a call made in some runs only still counts one).
analysis::FlameTree perRun(analysis::FlameTree tree, int runs)
{
    if (runs <= 1)
        return tree;
    const auto n = std::uint64_t(runs);
    for (auto &node : tree.nodes) {
        node.totalNs /= runs;
        node.selfNs /= runs;
        node.calls = node.calls == 0 ? 0 : std::max<std::uint64_t>(1, (node.calls + n / 2) / n);
    }
    return tree;
}

} // namespace

std::string withInputsFieldHint(std::string message)
{
    if (const auto at = message.find(model::kGiveInputsHint); at != std::string::npos)
        message.replace(at, model::kGiveInputsHint.size(), "type them in the Inputs field, such as 1x3x224x224");
    return message;
}

Result<VariantsRun> runVariants(const VariantsRequest &request, ProgressReporter &progress, const StopToken &stop)
{
    const std::string file = request.model.filename().string();
    model::CompareOptions options;
    const auto files = model::dataFilesIn(request.inputSpec, request.model.parent_path());
    if (!files.ok())
        return Error{file + ": inputs \"" + request.inputSpec + "\": " + files.error().message};
    if (files.value()) {
        // Samples saved by torch.save: every variant is scored on them.
        options.data = files.value()->data;
        options.labels = files.value()->labels;
    } else if (!request.inputSpec.empty()) {
        auto inputs = model::parseInputSpecs(request.inputSpec);
        if (!inputs.ok())
            return Error{file + ": inputs \"" + request.inputSpec + "\": " + inputs.error().message};
        options.inputs = std::move(inputs).value();
    }
    auto variants = model::parseVariants(request.variants);
    if (!variants.ok())
        return Error{file + ": variants: " + variants.error().message};
    options.variants = std::move(variants).value();
    options.warmup = request.warmup;
    options.iterations = request.iterations;

    VariantsRun run;
    {
        auto reporter = subRange(progress, 0, request.layers ? 500 : 1000);
        auto report = engine::compareVariants(request.engine, request.model, options, {}, reporter, stop);
        if (!report.ok())
            return Error{withInputsFieldHint(report.error().message)};
        run.report = std::move(report).value();
    }
    if (!request.layers)
        return run;
    model::RunOptions profileOptions;
    profileOptions.inputs = run.report.inputs;
    profileOptions.warmup = 2;
    profileOptions.iterations = 3;
    run.profiledRuns = profileOptions.iterations;
    const auto &rows = run.report.rows;
    const int count = int(rows.size());
    std::vector<model::LayerRow> baseline;
    std::optional<analysis::FlameTree> baselineTree;
    for (int i = 0; i < count; ++i) {
        if (stop.stopRequested())
            return Error{file + ": cancelled"};
        auto reporter = subRange(progress, 500 + 500 * i / count, 500 + 500 * (i + 1) / count);
        if (i > 0 && !rows[std::size_t(i)].ok())
            continue;
        auto profile = engine::profileVariant(request.engine, request.model, rows[std::size_t(i)].variant, profileOptions, reporter, stop);
        if (i == 0) {
            if (!profile.ok())
                return profile.error();
            baseline = profile->rows;
            if (auto tree = profileFlameTree(profile->events, stop))
                baselineTree = perRun(std::move(*tree), profile->iterations);
            continue;
        }
        VariantLayers layers;
        layers.variant = rows[std::size_t(i)].name;
        if (profile.ok()) {
            layers.deltas = model::layerDeltas(baseline, profile->rows);
            if (auto tree = profileFlameTree(profile->events, stop); tree && baselineTree)
                layers.flame = std::make_shared<const analysis::FlameGraph>(analysis::prepareDiffGraph(
                    analysis::diffFlameTrees(*baselineTree, perRun(std::move(*tree), profile->iterations))));
        } else
            layers.error = profile.error().message;
        run.layers.push_back(std::move(layers));
    }
    return run;
}

Result<TracesComparison> diffLoadedTraces(const TraceDocument &base, const TraceDocument &other, ProgressReporter &progress,
                                          const StopToken &stop)
{
    const Error cancelled{"trace comparison cancelled"};
    TracesComparison comparison;
    comparison.diff = analysis::diffTraces(*base.index, *other.index, &stop);
    progress.reportPermille(600);
    const auto baseTree = analyses::flameTree(base, comparedFlameOptions(), stop);
    const auto otherTree = baseTree ? analyses::flameTree(other, comparedFlameOptions(), stop) : nullptr;
    if (!otherTree)
        return cancelled;
    comparison.flame = std::make_shared<const analysis::FlameGraph>(analysis::prepareDiffGraph(
        analysis::diffFlameTrees(analysis::mergeProfilerSteps(*baseTree), analysis::mergeProfilerSteps(*otherTree))));
    if (stop.stopRequested())
        return cancelled;
    return comparison;
}

} // namespace pyrometer::ui
