#pragma once

#include "core/report/report.h"
#include "core/report/svgchart.h"
#include "core/report/tracereport.h"

#include <array>
#include <string>
#include <vector>

namespace pyrometer::analysis {
struct JobFigures;
} // namespace pyrometer::analysis

namespace pyrometer::report {

// The report of a distributed job, made from analysis::JobFigures alone (no trace is held), for
// pyrometer-cli report --job and the window's File > Export report of a job.

// The five parts of a rank's window, in the order the chart stacks them; they add up to the
// window (RankFigures' partition).
inline constexpr std::array<const char *, 5> kRankPartNames{"Compute", "Hidden communication", "Exposed communication",
                                                            "Memory", "Idle"};
// Their colours, "#rrggbb": compute green as the step chart's kernels, communication hidden
// behind compute a pale and exposed communication a strong orange, memory blue as memcpy, idle grey.
inline constexpr std::array<const char *, 5> kRankPartColors{"#2e7d32", "#ffcc80", "#e65100", "#1565c0", "#bdbdbd"};

// The job's sections: a summary with the straggler finding and how the clocks were aligned
// (level 2), then the ranks with their chart and table, the stragglers' evidence, the
// collectives and the problems found in the files (level 3). Ids start with idPrefix. Make a
// whole report of them with makeReport(names, jobSections(...)).
std::vector<Section> jobSections(const analysis::JobFigures &job, const std::string &idPrefix,
                                 const ReportOptions &options = {});

// What the job says about stragglers, one sentence each: "Straggler: rank 5 — compute 412.0
// ms/step against a median of 301.5 ms of the other ranks (1.37x); the others waited 1.2 s in
// collectives", or one "No straggler: ..." sentence. The CLI prints the same words.
std::vector<std::string> stragglerSentences(const analysis::JobFigures &job);

// "Clocks aligned on the end of ...": the anchor in a sentence.
std::string anchorSentence(const analysis::JobFigures &job);

// Each rank's window split into its five parts (kRankPartNames), one bar per rank, in ms.
StackedBarChart rankChart(const analysis::JobFigures &job);

// The same as columns, one per rank in rank order (averaged beyond maxColumns), for jobs with
// more ranks than a bar chart holds.
ColumnChart rankColumnChart(const analysis::JobFigures &job, std::size_t maxColumns);

} // namespace pyrometer::report
