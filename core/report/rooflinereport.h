#pragma once

#include "core/analysis/roofline.h"
#include "core/report/report.h"
#include "core/report/tracereport.h"

#include <string>

namespace pyrometer::report {

// A roofline drawn as SVG text (so pyrometer-cli draws it without Qt): log-log, arithmetic
// intensity against achieved FLOP/s, the roofs of the device as lines, each row of known work a
// circle sized by its share of the time and coloured by its bound, the heaviest ones named.
std::string renderRooflineSvg(const analysis::Roofline &roofline, int width = 900, int height = 420);

// The trace's roofline section (level 3, id idPrefix + "roofline"): the device and its figures'
// source, how much of the time is in ops of known work, the chart, the heaviest ops with their
// intensity, achieved rate, share of the roof and bound, and what to change. Says so when no
// op's work is known (the trace has no input shapes).
Section rooflineSection(const analysis::TraceIndex &index, const std::string &idPrefix, const ReportOptions &options = {},
                        const StopToken *stop = nullptr);

} // namespace pyrometer::report
