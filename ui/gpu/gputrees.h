#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QString>

#include "core/analysis/criticalpath.h"
#include "core/analysis/criticalpathrows.h"
#include "core/analysis/graphreplays.h"
#include "core/analysis/idlecauses.h"
#include "core/analysis/kernelsequences.h"
#include "core/analysis/launches.h"
#include "ui/tables/tabletree.h"

namespace pyrometer::ui::gpu {

// The GPU page's tables as TableTrees, for TablePane: sortable, filterable, copyable. Each
// formats what core/analysis computed; none computes a figure of its own. `device` is the
// accelerator's word for stream names ("GPU 0 stream 7", "MTIA 17 stream 101").

// Launch delay distributions: per kernel name (a row stands for that kernel's events), or
// per stream.
tables::TableTree buildLaunchTree(const analysis::LaunchStats &stats, bool streams,
                                  const QString &device = QStringLiteral("GPU"));

// Per step and stream: busy time and idle time by cause (host wait, kernel wait, other), the
// steps as groups.
tables::TableTree buildIdleTree(const analysis::IdleBreakdown &idle, const QString &device = QStringLiteral("GPU"));

// The critical path's rows (buildPathRows: CPU nodes grouped under their top-level op, an "Op"
// row with the nodes that passed the filter as children), longest first: name, kind, nodes held,
// start (from originNs, the trace's start), wait before, duration, share, and the step time a
// what-if saves by making a node twice as fast (blank where none was computed).
tables::TableTree buildCriticalPathTree(const analysis::CriticalPath &path, const std::vector<analysis::PathRow> &rows,
                                        std::int64_t originNs);

// Repeated kernel sequences: length, occurrences, stream, time, the kernels (a group row) and,
// under it, each kernel with the op that launched it.
tables::TableTree buildSequenceTree(const std::vector<analysis::KernelSequence> &sequences,
                                    const QString &device = QStringLiteral("GPU"));

// CUDA graphs: one row per graph (and stream) with its replays' sums, each replay under it.
tables::TableTree buildGraphTree(const analysis::GraphReplays &graphs, std::int64_t originNs,
                                 const QString &device = QStringLiteral("GPU"));

// "Kernel wait" and the like, and the path node kinds ("CPU", "Launch", "Sync", "GPU").
QString pathNodeKindLabel(analysis::PathNodeKind kind);

namespace column {
inline const QString kKernel = QStringLiteral("Kernel");
inline const QString kStreamName = QStringLiteral("Stream");
inline const QString kLaunches = QStringLiteral("Launches");
inline const QString kMedianDelay = QStringLiteral("Median delay");
inline const QString kP90Delay = QStringLiteral("p90 delay");
inline const QString kMaxDelay = QStringLiteral("Max delay");
inline const QString kMeanQueue = QStringLiteral("Mean queued");
inline const QString kMaxQueue = QStringLiteral("Max queued");
inline const QString kIdleEmpty = QStringLiteral("Idle, nothing queued");
inline const QString kCallMean = QStringLiteral("Call (mean)");
inline const QString kKernelMean = QStringLiteral("Kernel (mean)");
inline const QString kOutliers = QStringLiteral("Outliers");
inline const QString kStep = QStringLiteral("Step / stream");
inline const QString kSpan = QStringLiteral("Span");
inline const QString kBusy = QStringLiteral("Busy");
inline const QString kHostWait = QStringLiteral("Host wait");
inline const QString kKernelWait = QStringLiteral("Kernel wait");
inline const QString kOther = QStringLiteral("Other");
inline const QString kKind = QStringLiteral("Kind");
inline const QString kNode = QStringLiteral("Node");
inline const QString kWaitBefore = QStringLiteral("Wait before");
inline const QString kNodes = QStringLiteral("Nodes");
inline const QString kStart = QStringLiteral("Start");
inline const QString kDuration = QStringLiteral("Duration");
inline const QString kShare = QStringLiteral("Share of step");
inline const QString kSavedIfTwiceAsFast = QStringLiteral("Saved if 2x faster");
inline const QString kSequence = QStringLiteral("Sequence");
inline const QString kLength = QStringLiteral("Length");
inline const QString kOccurrences = QStringLiteral("Occurrences");
inline const QString kTime = QStringLiteral("Time");
inline const QString kGaps = QStringLiteral("Gaps inside");
inline const QString kOp = QStringLiteral("Launching op");
inline const QString kGraph = QStringLiteral("Graph / replay");
inline const QString kInGraphs = QStringLiteral("In CUDA graphs");
inline const QString kReplays = QStringLiteral("Replays");
inline const QString kEvents = QStringLiteral("Kernels");
inline const QString kFirstDelay = QStringLiteral("First-kernel delay");
inline const QString kLongestKernel = QStringLiteral("Longest kernel");
} // namespace column

} // namespace pyrometer::ui::gpu
