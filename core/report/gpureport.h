#pragma once

#include "core/report/report.h"
#include "core/report/tracereport.h"

#include <string>
#include <vector>

namespace pyrometer::analysis {
struct TraceIndex;
}

namespace pyrometer::report {

// A GPU trace's deeper sections (level 3, ids starting with idPrefix): GPU time by kernel type,
// launch delays per kernel with the longest queue per stream, idle time per stream by cause,
// the critical path of the longest step with what-ifs, and the kernel sequences that repeat.
// Nothing for a trace without device events; nothing when stopped.
std::vector<Section> gpuSections(const analysis::TraceIndex &index, const std::string &idPrefix,
                                 const ReportOptions &options = {}, const StopToken *stop = nullptr);

} // namespace pyrometer::report
