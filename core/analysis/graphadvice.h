#pragma once

#include "core/analysis/advice.h"
#include "core/analysis/graphreplays.h"

#include <vector>

namespace pyrometer::analysis {

// What a run that replays CUDA graphs can still act on (rule "cuda_graphs"): the share of device
// time the replays run, the idle time inside them, the kernel that takes most of their time, and
// the eager device events launched one by one between replays. Nothing when there are no replays.
void graphReplayRule(const TraceIndex &index, const GraphReplays &graphs, std::vector<Finding> &out);

} // namespace pyrometer::analysis
