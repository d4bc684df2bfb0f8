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
    std::size_t topRows = 15;      // rows of the ops, kernels and layers tables
    std::size_t maxChartBars = 40; // steps drawn in the breakdown chart
    TimeUnit timeUnit = TimeUnit::Auto;
    bool operator==(const ReportOptions &) const = default;
};

// A trace's sections: a summary (level 2, titled with the file name), then the step breakdown
// with its chart, the top operators, the top GPU kernels and the advice (level 3). Ids start
// with idPrefix, so several traces fit in one report. Returns nothing when stopped.
std::vector<Section> traceSections(const analysis::TraceIndex &index, const std::string &idPrefix,
                                   const ReportOptions &options = {}, const StopToken *stop = nullptr);

// The step breakdown as a chart: one bar per step (up to maxBars), one colour per category.
StackedBarChart stepChart(const analysis::StepBreakdown &steps, std::size_t maxBars);

// "Pyrometer report: a.json, b.pt" and a subtitle with the local time it was made.
Report makeReport(const std::vector<std::string> &inputNames, std::vector<Section> sections);

// Appends sections made elsewhere (the sweep and comparison pages' plots and tables).
void appendSections(Report &report, std::vector<Section> sections);

} // namespace pyrometer::report
