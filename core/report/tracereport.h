#pragma once

#include "core/report/report.h"
#include "core/report/svgchart.h"
#include "core/util/format.h"
#include "core/util/progress.h"

#include <cstddef>
#include <string>
#include <vector>

namespace pyrometer::analysis {
struct TraceIndex;
struct StepBreakdown;
} // namespace pyrometer::analysis

namespace pyrometer::report {

struct ReportOptions {
    std::size_t topRows = 15;         // rows of the ops, kernels and layers tables, and of the slowest steps
    std::size_t maxChartBars = 40;    // up to this many steps, one labelled bar each
    std::size_t maxChartColumns = 300; // more steps: a column chart, averaging consecutive steps beyond this
    std::size_t maxStepRows = 50;     // more steps: their distribution and the slowest topRows, not every step
    TimeUnit timeUnit = TimeUnit::Auto;
    bool operator==(const ReportOptions &) const = default;
};

// A trace's sections: a summary (level 2, titled with the file name), then the step breakdown
// with its chart (beyond maxStepRows steps, their distribution and the slowest of them instead
// of every step), the top operators, the top GPU kernels, the advice, the roofline and, for a
// GPU trace, gpuSections (level 3). Ids start
// with idPrefix, so several traces fit in one report. Returns nothing when stopped.
std::vector<Section> traceSections(const analysis::TraceIndex &index, const std::string &idPrefix,
                                   const ReportOptions &options = {}, const StopToken *stop = nullptr);

// The step breakdown as a chart: one bar per step (up to maxBars), one colour per category.
StackedBarChart stepChart(const analysis::StepBreakdown &steps, std::size_t maxBars);
// Every step in time order as columns, consecutive steps averaged when there are more than
// maxColumns (see bucketSteps).
ColumnChart stepColumnChart(const analysis::StepBreakdown &steps, std::size_t maxColumns);

// "Pyrometer report: a.json, b.pt" and a subtitle with the local time it was made.
Report makeReport(const std::vector<std::string> &inputNames, std::vector<Section> sections);

// Appends sections made elsewhere (the sweep and comparison pages' plots and tables).
void appendSections(Report &report, std::vector<Section> sections);

} // namespace pyrometer::report
