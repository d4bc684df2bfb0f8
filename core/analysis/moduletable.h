#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::analysis {

// One nn.Module of the model, as the trace's "nn.Module: Name_k" Python frames (with_stack=True)
// nest them. Times in ns.
struct ModuleRow {
    std::string path;               // outermost first, joined by '/': "BertModel_0/BertEncoder_0"
    std::string name;               // the last segment of the path
    std::int32_t parent = -1;       // row of the enclosing module, -1 at the top
    std::uint64_t calls = 0;        // frames with this path
    std::int64_t totalNs = 0;       // CPU: the frames' durations
    std::int64_t selfNs = 0;        // ... minus the frames of the modules directly inside
    std::int64_t deviceTotalNs = 0; // device events launched by ops inside the frames
    std::int64_t deviceSelfNs = 0;  // ... by ops outside any nested module
    bool operator==(const ModuleRow &) const = default;
};

struct ModuleTable {
    std::vector<ModuleRow> rows; // a parent before its children; siblings in order of first call
    bool operator==(const ModuleTable &) const = default;
};

// "BertModel_0" for an "nn.Module: BertModel_0" Python frame; empty for any other event.
std::string_view moduleFrameName(const TraceIndex &index, EventRef event);

// Frames that start in range count whole; device time counts for the frames in range around
// its launching op. Empty when the trace recorded no module frames.
ModuleTable buildModuleTable(const TraceIndex &index, const TimeRange &range = {}, const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
