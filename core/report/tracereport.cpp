#include "core/report/tracereport.h"

#include "core/report/gpureport.h"

#include "core/report/reportrender.h"
#include "core/report/rooflinereport.h"
#include "core/report/stepsummary.h"

#include "core/analysis/advice.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#include "core/analysis/stepcolors.h"
#include "core/analysis/steps.h"
#include "core/analysis/traceindex.h"
#include "core/analysis/utilization.h"
#include "core/trace/trace.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace pyrometer::report {
namespace {

using analysis::kStepCategoryCount;
using analysis::StepCategory;

constexpr std::array<const char *, kStepCategoryCount> kCategoryTitles{"Kernel",     "Memcpy",   "Memset", "Runtime",
                                                                      "DataLoader", "CPU exec", "Other"};

// The one step palette (stepcolors.h), in the order of the categories.
std::vector<std::string> categoryColors()
{
    std::vector<std::string> colors;
    for (std::size_t c = 0; c < kStepCategoryCount; ++c)
        colors.push_back(analysis::stepCategoryColorHex(StepCategory(c)));
    return colors;
}

std::string percent(double fraction)
{
    return fixed(100.0 * fraction, 1) + " %";
}

std::string summaryTitle(const trace::Trace &trace)
{
    return "Trace " + trace.info.file.filename().string();
}

Section summarySection(const analysis::TraceIndex &index, const analysis::StepBreakdown &steps,
                       const StepDistribution &distribution, const analysis::KernelTable &kernels,
                       const std::string &prefix, const ReportOptions &options)
{
    const auto &trace = *index.trace;
    const auto &info = trace.info;
    const auto duration = [&](std::int64_t ns) { return formatDuration(ns, options.timeUnit); };
    Section section{prefix + "summary", summaryTitle(trace), 2, {}, {}, {}, {}};
    section.facts.push_back({"File", info.file.string()});
    section.facts.push_back({"Size", formatBytes(info.fileBytes) + (trace.gzipped ? " (gzip)" : "")});
    section.facts.push_back({"Events", std::to_string(info.eventCount)});
    section.facts.push_back({"Processes / tracks", std::to_string(info.processCount) + " / " + std::to_string(info.trackCount)});
    section.facts.push_back({"Span", duration(info.spanNanoseconds())});
    if (!steps.steps.empty())
        section.facts.push_back(
            {"Steps", std::to_string(distribution.duration.count) + ", " + analysis::describeStepMean(analysis::stepMean(steps), duration)});
    const auto gpu = analysis::gpuUtilization(index, steps.steps);
    for (const auto &busy : gpu.devices)
        section.facts.push_back({"GPU " + std::to_string(busy.device) + " utilization",
                                 percent(busy.utilization()) + (gpu.overSteps ? " of the step time (" : " of the trace's span, no steps (") +
                                     duration(busy.busyNs) + " of " + duration(busy.spanNs) + ")"});
    if (index.hasDevice)
        section.facts.push_back({"GPU time", duration(kernels.totalNs) + " in kernels, memcpy and memset"});
    if (info.warningCount > 0)
        section.facts.push_back({"Warnings while loading", std::to_string(info.warningCount)});
    if (info.partial)
        section.paragraphs.push_back("The file is truncated: this report covers its valid part only.");
    return section;
}

// The step table's columns: name, duration, the categories and, with a GPU, its utilization.
Table stepTable(const analysis::StepBreakdown &steps, const std::string &caption)
{
    Table table;
    table.caption = caption;
    table.header = {"Step", "Duration"};
    for (const auto *title : kCategoryTitles)
        table.header.push_back(title);
    if (steps.hasDevice)
        table.header.push_back("GPU util.");
    table.rightAligned.assign(table.header.size(), true);
    table.rightAligned[0] = false;
    return table;
}

std::vector<std::string> stepCells(const analysis::StepBreakdown &steps, const analysis::StepRow &step, TimeUnit unit)
{
    std::vector<std::string> row{step.name, formatDuration(step.durationNs, unit)};
    for (const auto ns : step.categoryNs)
        row.push_back(formatDuration(ns, unit));
    if (steps.hasDevice)
        row.push_back(percent(step.gpuUtilization));
    return row;
}

// Many steps: their distribution, per category too, and the slowest of them.
std::vector<Table> longStepTables(const analysis::StepBreakdown &steps, const StepDistribution &distribution,
                                  const ReportOptions &options)
{
    const auto duration = [&](std::int64_t ns) { return formatDuration(ns, options.timeUnit); };
    Table spread{"Distribution over all " + std::to_string(distribution.duration.count) + " steps",
                 {"Time", "Mean", "p50", "p90", "p99", "Max"},
                 {false, true, true, true, true, true},
                 {},
                 {}};
    const auto addRow = [&](const std::string &what, const Distribution &d) {
        spread.rows.push_back({what, duration(d.mean), duration(d.p50), duration(d.p90), duration(d.p99), duration(d.max)});
    };
    addRow("Step duration", distribution.duration);
    for (std::size_t c = 0; c < kStepCategoryCount; ++c) {
        if (distribution.categories[c].max > 0)
            addRow(kCategoryTitles[c], distribution.categories[c]);
    }

    const auto slowest = slowestSteps(steps, options.topRows);
    Table table = stepTable(steps, "The " + std::to_string(slowest.size()) + " slowest steps; # is the step's place in time order");
    table.header.insert(table.header.begin() + 1, "#");
    table.rightAligned.insert(table.rightAligned.begin() + 1, true);
    for (const auto i : slowest) {
        auto row = stepCells(steps, steps.steps[i], options.timeUnit);
        row.insert(row.begin() + 1, std::to_string(i + 1));
        table.rows.push_back(std::move(row));
    }
    return {std::move(spread), std::move(table)};
}

Section stepsSection(const analysis::StepBreakdown &steps, const StepDistribution &distribution, const std::string &prefix,
                     const ReportOptions &options)
{
    Section section{prefix + "steps", "Step breakdown", 3, {}, {}, {}, {}};
    if (steps.steps.empty()) {
        section.paragraphs.push_back("The trace has no ProfilerStep#N annotations: record it inside a "
                                     "torch.profiler schedule (prof.step() per iteration) for a per-step breakdown.");
        return section;
    }
    section.paragraphs.push_back(
        "Time per ProfilerStep by what the GPU and CPU were doing; where several overlap, the first category "
        "in this order wins (the TensorBoard profiler plugin's rule).");
    const std::size_t count = steps.steps.size();
    if (count <= options.maxChartBars) {
        section.images.push_back(
            {"One bar per step, split by category, in ms", "image/svg+xml", renderSvg(stepChart(steps, options.maxChartBars)), 0});
    } else {
        const auto chart = stepColumnChart(steps, options.maxChartColumns);
        const std::string caption =
            chart.itemsPerColumn == 1
                ? "Every step in time order, one column per step, split by category, in ms"
                : "All " + std::to_string(count) + " steps in time order: each column the mean of " +
                      std::to_string(chart.itemsPerColumn) + " consecutive steps split by category, its mark the slowest of them, in ms";
        section.images.push_back({caption, "image/svg+xml", renderSvg(chart), 0});
    }

    if (count > options.maxStepRows) {
        for (auto &table : longStepTables(steps, distribution, options))
            section.tables.push_back(std::move(table));
        return section;
    }
    Table table = stepTable(steps, "");
    for (const auto &step : steps.steps)
        table.rows.push_back(stepCells(steps, step, options.timeUnit));
    section.tables.push_back(std::move(table));
    return section;
}

Section opsSection(const analysis::TraceIndex &index, const std::string &prefix, const ReportOptions &options,
                   const StopToken *stop)
{
    analysis::OpTableOptions tableOptions;
    tableOptions.top = options.topRows;
    const auto ops = analysis::buildOpTable(index, tableOptions, stop);
    Section section{prefix + "ops", "Top operators by self time", 3, {}, {}, {}, {}};
    Table table{"", {"Operator", "Calls", "Self", "Self %", "Total", "Average"}, {false, true, true, true, true, true}, {}, {true}};
    if (index.hasDevice) {
        table.header.push_back("Device total");
        table.rightAligned.push_back(true);
    }
    const auto duration = [&](std::int64_t ns) { return formatDuration(ns, options.timeUnit); };
    for (const auto &op : ops.rows) {
        std::vector<std::string> row{op.name,           std::to_string(op.calls),  duration(op.selfNs),
                                     fixed(op.selfPercent, 1), duration(op.totalNs), duration(op.avgNs())};
        if (index.hasDevice)
            row.push_back(duration(op.deviceTotalNs));
        table.rows.push_back(std::move(row));
    }
    if (table.rows.empty())
        section.paragraphs.push_back("The trace has no CPU operators.");
    else
        section.tables.push_back(std::move(table));
    return section;
}

Section kernelsSection(const analysis::KernelTable &kernels, const std::string &prefix, const ReportOptions &options)
{
    Section section{prefix + "kernels", "Top GPU kernels", 3, {}, {}, {}, {}};
    if (kernels.rows.empty()) {
        section.paragraphs.push_back("The trace has no GPU kernels, memcpy or memset.");
        return section;
    }
    // CUDA graphs and generated source only where the trace has them: most traces have neither.
    const bool graphs = std::any_of(kernels.rows.begin(), kernels.rows.end(),
                                    [](const analysis::KernelRow &k) { return k.graphCount > 0; });
    const bool sources = std::any_of(kernels.rows.begin(), kernels.rows.end(),
                                     [](const analysis::KernelRow &k) { return !k.hash.empty(); });
    Table table{"", {"Kernel", "Kind", "Count", "Total", "Average", "%", "Launched by"},
                {false, false, true, true, true, true, false}, {}, {true, false, false, false, false, false, true}};
    if (graphs) {
        table.header.push_back("CUDA graphs");
        table.rightAligned.push_back(false);
        table.names.push_back(false);
    }
    if (sources) {
        table.header.push_back("Generated source");
        table.rightAligned.push_back(false);
        table.names.push_back(true);
    }
    for (const auto &kernel : kernels.rows) {
        std::vector<std::string> row{analysis::demangledKernelName(kernel.name),
                                     std::string(analysis::kindName(kernel.kind)),
                                     std::to_string(kernel.count),
                                     formatDuration(kernel.totalNs, options.timeUnit),
                                     formatDuration(kernel.avgNs(), options.timeUnit),
                                     fixed(kernel.percent, 1),
                                     kernel.launchOp};
        if (graphs) {
            std::string ids;
            for (std::size_t g = 0; g < kernel.graphIds.size() && g < 4; ++g)
                ids += (g ? ", " : "") + std::to_string(kernel.graphIds[g]);
            if (kernel.graphIds.size() > 4)
                ids += ", … (" + std::to_string(kernel.graphIds.size()) + " graphs)";
            row.push_back(ids);
        }
        if (sources)
            row.push_back(kernel.hash.empty() ? std::string() : kernel.backend + " " + kernel.hash + " " + kernel.file);
        table.rows.push_back(std::move(row));
    }
    section.tables.push_back(std::move(table));
    return section;
}

Section adviceSection(const analysis::TraceIndex &index, const std::string &prefix, const StopToken *stop)
{
    const auto findings = analysis::adviseTrace(index, {}, stop);
    Section section{prefix + "advice", "Advice", 3, {}, {}, {}, {}};
    if (findings.empty()) {
        section.paragraphs.push_back("No rule fired: no data-loader stalls, idle GPU, launch-bound kernels, "
                                     "synchronizations or allocator churn above the thresholds.");
        return section;
    }
    Table table{"", {"Finding", "Evidence", "Suggested fix"}, {}, {}, {}};
    for (const auto &finding : findings) {
        std::string evidence;
        for (const auto &e : finding.evidence)
            evidence += (evidence.empty() ? "" : ", ") + e.name + " = " + fixed(e.value, e.unit == "count" ? 0 : 2) +
                        (e.unit == "count" ? "" : " " + e.unit);
        table.rows.push_back({finding.title + ": " + finding.detail, evidence, finding.fix});
    }
    section.tables.push_back(std::move(table));
    return section;
}

} // namespace

StackedBarChart stepChart(const analysis::StepBreakdown &steps, std::size_t maxBars)
{
    StackedBarChart chart;
    chart.title = "Step time by category";
    chart.unit = "ms";
    for (std::size_t c = 0; c < kStepCategoryCount; ++c)
        chart.seriesNames.emplace_back(kCategoryTitles[c]);
    chart.seriesColors = categoryColors();
    for (const auto &step : steps.steps) {
        if (chart.bars.size() >= maxBars)
            break;
        StackedBarChart::Bar bar{step.name, {}};
        for (const auto ns : step.categoryNs)
            bar.values.push_back(double(ns) / 1e6);
        chart.bars.push_back(std::move(bar));
    }
    return chart;
}

ColumnChart stepColumnChart(const analysis::StepBreakdown &steps, std::size_t maxColumns)
{
    ColumnChart chart;
    chart.title = "Step time by category";
    chart.unit = "ms";
    chart.xLabel = "step, in time order";
    chart.seriesNames.assign(kCategoryTitles.begin(), kCategoryTitles.end());
    chart.seriesColors = categoryColors();
    chart.itemCount = steps.steps.size();
    const auto buckets = bucketSteps(steps, maxColumns);
    chart.itemsPerColumn = buckets.empty() ? 1 : buckets.front().count;
    for (const auto &bucket : buckets) {
        ColumnChart::Column column;
        for (const auto ns : bucket.meanNs)
            column.values.push_back(ns / 1e6);
        column.max = bucket.count > 1 ? double(bucket.maxNs) / 1e6 : 0;
        chart.columns.push_back(std::move(column));
    }
    return chart;
}

std::vector<Section> traceSections(const analysis::TraceIndex &index, const std::string &idPrefix,
                                   const ReportOptions &options, const StopToken *stop)
{
    const auto steps = analysis::buildStepBreakdown(index, {}, stop);
    const auto distribution = stepDistribution(steps);
    analysis::KernelTableOptions kernelOptions;
    kernelOptions.top = options.topRows;
    const auto kernels = analysis::buildKernelTable(index, kernelOptions, stop);
    std::vector<Section> sections;
    sections.push_back(summarySection(index, steps, distribution, kernels, idPrefix, options));
    sections.push_back(stepsSection(steps, distribution, idPrefix, options));
    sections.push_back(opsSection(index, idPrefix, options, stop));
    sections.push_back(kernelsSection(kernels, idPrefix, options));
    sections.push_back(adviceSection(index, idPrefix, stop));
    sections.push_back(rooflineSection(index, idPrefix, options, stop));
    for (auto &section : gpuSections(index, idPrefix, options, stop))
        sections.push_back(std::move(section));
    if (stop && stop->stopRequested())
        return {};
    return sections;
}

Report makeReport(const std::vector<std::string> &inputNames, std::vector<Section> sections)
{
    Report report;
    report.title = "Pyrometer report";
    for (std::size_t i = 0; i < inputNames.size(); ++i)
        report.title += (i == 0 ? ": " : ", ") + inputNames[i];
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::array<char, 64> when{};
    std::tm local{};
    localtime_r(&now, &local);
    std::strftime(when.data(), when.size(), "%Y-%m-%d %H:%M", &local);
    report.subtitle = std::string("Made by Pyrometer on ") + when.data() + ".";
    report.sections = std::move(sections);
    return report;
}

void appendSections(Report &report, std::vector<Section> sections)
{
    for (auto &section : sections)
        report.sections.push_back(std::move(section));
}

} // namespace pyrometer::report
