#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QString>

#include "core/analysis/moduletable.h"
#include "core/analysis/opmemory.h"
#include "ui/tables/tabletree.h"

namespace pyrometer::ui::tables {

// The Modules table: the nn.Module tree with calls, total and self CPU time, their share of
// the outermost modules' time, and (with device) total and self device time. A row stands for
// the module's "nn.Module: Name" frames, which the timeline highlights.
TableTree buildModuleTree(const analysis::ModuleTable &table, bool device);

// The Memory table: per op and device, allocations and frees with their bytes, the net, and
// (when the trace gives addresses) the bytes still held at the device's peak.
TableTree buildOpMemoryTree(const analysis::OpMemoryTable &table);

namespace column {
inline const QString kModuleTotalPercent = QStringLiteral("% of model");
inline const QString kAllocations = QStringLiteral("Allocations");
inline const QString kFrees = QStringLiteral("Frees");
inline const QString kAllocated = QStringLiteral("Allocated");
inline const QString kFreed = QStringLiteral("Freed");
inline const QString kNet = QStringLiteral("Net");
inline const QString kHeldAtPeak = QStringLiteral("Held at peak");
} // namespace column

} // namespace pyrometer::ui::tables
