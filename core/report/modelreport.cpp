#include "core/report/modelreport.h"

#include "core/report/reportrender.h"

#include "core/model/latency.h"
#include "core/model/layerprofile.h"

#include <algorithm>
#include <cstdio>

namespace pyrometer::report {
namespace {

// Milliseconds from libtorch's timers, shown in the unit the user asked for.
std::string millis(double ms, TimeUnit unit)
{
    return formatDuration(std::int64_t(ms * 1e6 + (ms >= 0 ? 0.5 : -0.5)), unit);
}

std::string shapes(const std::vector<std::vector<std::int64_t>> &outputShapes)
{
    std::string text;
    for (const auto &shape : outputShapes) {
        text += text.empty() ? "" : ", ";
        for (std::size_t i = 0; i < shape.size(); ++i)
            text += (i ? "x" : "") + std::to_string(shape[i]);
    }
    return text;
}

} // namespace

std::vector<Section> modelSections(const model::LatencyReport &latency, const model::ProfileReport &profile,
                                   const std::string &idPrefix, const ReportOptions &options)
{
    const auto unit = options.timeUnit;
    Section summary{idPrefix + "summary", "Model " + latency.path.filename().string(), 2, {}, {}, {}, {}};
    summary.facts = {
        {"File", latency.path.string()},
        {"Inputs", model::formatInputSpecs(latency.inputs)},
        {"Mode", latency.mode == model::RunMode::Train ? "train step" : "inference"},
        {"Threads", std::to_string(latency.threads)},
        {"Engine", latency.engine.empty() ? std::string("embedded libtorch") : latency.engine},
        {"Runs", std::to_string(latency.warmup) + " warm-up, " + std::to_string(latency.iterations) + " timed"},
        {"Cold (first run)", millis(latency.coldMs, unit)},
        {"Warm mean", millis(latency.warm.mean, unit) + " \xC2\xB1 " + millis(latency.warm.std, unit)},
        {"Warm p50 / p90 / p99", millis(latency.warm.p50, unit) + " / " + millis(latency.warm.p90, unit) + " / " +
                                     millis(latency.warm.p99, unit)},
        {"Throughput",
         fixed(latency.throughputPerSecond, 1) + " items/s (batch " + std::to_string(latency.batchSize) + ")"},
        {"Profiled forward", millis(profile.forwardMs, unit) + " over " + std::to_string(profile.iterations) + " runs"},
        {"Peak activation memory", formatBytes(std::uint64_t(std::max<std::int64_t>(0, profile.peakMemoryBytes)))},
        {"FLOPs per run",
         fixed(profile.totalFlops / 1e9, 3) + " GFLOP (" + fixed(profile.totalMacs / 1e9, 3) + " GMAC)"},
    };
    if (!profile.rows.empty())
        summary.facts.insert(summary.facts.begin() + 4, Fact{"Parameters", std::to_string(profile.rows.front().params)});

    Section layers{idPrefix + "layers", "Slowest layers by self time", 3, {}, {}, {}, {}};
    std::vector<const model::LayerRow *> leaves;
    for (const auto &row : profile.rows) {
        if (row.leaf && !row.module.empty())
            leaves.push_back(&row);
    }
    std::stable_sort(leaves.begin(), leaves.end(), [](const auto *a, const auto *b) { return a->selfMs > b->selfMs; });
    if (leaves.size() > options.topRows)
        leaves.resize(options.topRows);
    Table table{"", {"Layer", "Type", "Calls", "Self", "Total", "% of forward", "Parameters", "GFLOP/s", "Output"},
                {false, false, true, true, true, true, true, true, false}, {}, {true}};
    for (const auto *row : leaves) {
        table.rows.push_back({row->module, row->type, std::to_string(row->calls), millis(row->selfMs, unit),
                              millis(row->totalMs, unit), fixed(row->percent, 1), std::to_string(row->params),
                              fixed(row->gflopsPerSecond, 2), shapes(row->outputShapes)});
    }
    if (table.rows.empty())
        layers.paragraphs.push_back("The profile attributed no time to any layer.");
    else
        layers.tables.push_back(std::move(table));
    return {std::move(summary), std::move(layers)};
}

} // namespace pyrometer::report
