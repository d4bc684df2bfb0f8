#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QString>

#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#include "core/analysis/roofline.h"
#include "ui/tables/tabletree.h"

namespace pyrometer::ui::tables {

struct OpTreeOptions {
    analysis::OpGrouping grouping = analysis::OpGrouping::Name;
    bool device = false; // device self / total columns
    bool memory = false; // CPU memory columns (and device memory with device)
    // Each op's work under its device's roof (buildRoofline with everyOp, byShape for the Shape
    // grouping): adds the roofline columns to the Name and Shape groupings. Only read while
    // building.
    const analysis::Roofline *work = nullptr;
};

// The operators table as key_averages() prints it. Name and Shape groupings are flat (Shape
// adds an "Input shape" column); Module and Stack are trees of module paths / Python frames
// (outermost first) with the ops as leaves. A group row sums its subtree: Calls, Self over its
// direct ops, Total (and Device total, memory) as the self time of every op beneath it, which
// counts nested ops once; Avg, Min and Max are blank.
TableTree buildOpTree(const analysis::OpTable &table, const OpTreeOptions &options);

// The kernels table: one row per kernel (memcpy, memset) and stream, grouped by kernel type
// (analysis::classifyKernel) when the table holds more than one type, and the kernels of a
// torch.compile region gathered under it, those CUDA graph replays ran under "CUDA graph replays".
// Names read short (analysis::shortKernelName); the full name is the row's event name (tooltip,
// export, Timeline). With work (buildRoofline byKernel), each kernel gains
// the roofline columns.
TableTree buildKernelTree(const analysis::KernelTable &table, const analysis::Roofline *work = nullptr);

// Column titles, shared by the builders, the page and the tests.
namespace column {
inline const QString kName = QStringLiteral("Name");
inline const QString kShape = QStringLiteral("Input shape");
inline const QString kCalls = QStringLiteral("Calls");
inline const QString kCount = QStringLiteral("Count");
inline const QString kTotal = QStringLiteral("Total");
inline const QString kSelf = QStringLiteral("Self");
inline const QString kAvg = QStringLiteral("Avg");
inline const QString kMin = QStringLiteral("Min");
inline const QString kMax = QStringLiteral("Max");
inline const QString kSelfPercent = QStringLiteral("Self %");
inline const QString kTotalPercent = QStringLiteral("Total %");
inline const QString kDeviceSelf = QStringLiteral("Device self");
inline const QString kDeviceTotal = QStringLiteral("Device total");
inline const QString kCpuMemSelf = QStringLiteral("CPU mem self");
inline const QString kCpuMem = QStringLiteral("CPU mem");
inline const QString kDeviceMemSelf = QStringLiteral("Device mem self");
inline const QString kDeviceMem = QStringLiteral("Device mem");
inline const QString kGpuPercent = QStringLiteral("% of GPU time");
inline const QString kLaunchOp = QStringLiteral("Launching op");
inline const QString kDevice = QStringLiteral("Device");
inline const QString kStream = QStringLiteral("Stream");
inline const QString kRegion = QStringLiteral("Compiled region");
inline const QString kGraphs = QStringLiteral("CUDA graphs");
inline const QString kSource = QStringLiteral("Generated source");
} // namespace column

} // namespace pyrometer::ui::tables
