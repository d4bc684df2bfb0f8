#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"
#include "core/analysis/workclass.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

struct KernelTableOptions {
    bool byStream = false; // one row per (kernel, device, stream) instead of per kernel
    std::size_t top = 0;
    TimeRange range;
    ProcessSet processes; // the processes counted; empty: all
    bool operator==(const KernelTableOptions &) const = default;
};

// GPU kernels, memcpy and memset grouped by kind and name. Times in ns.
struct KernelRow {
    EventKind kind = EventKind::Kernel;
    std::string name;
    std::int32_t device = -1; // byStream only
    std::int32_t stream = -1; // byStream only
    std::uint64_t count = 0;
    std::int64_t totalNs = 0;
    std::int64_t minNs = 0;
    std::int64_t maxNs = 0;
    double percent = 0;   // of all device time in the table
    std::string launchOp; // the op that launched most of its time; empty when unknown
    // The torch.compile region ("Torch-Compiled Region: 0/0", "CompiledFunction") around the ops
    // that launched most of its time; empty outside one.
    std::string region;
    // CUDA graphs: how many of its runs a graph replay ran, and the graph ids (ascending).
    // A kernel mostly replayed names "graph replay" as its op: no op of the trace launched it.
    std::uint64_t graphCount = 0;
    std::vector<std::int32_t> graphIds;
    // A compiled kernel's provenance, from the op that launched most of its time (torch.compile's
    // Triton ops): empty when that op carries none.
    std::string backend; // "triton"
    std::string hash;    // the generated kernel's hash
    std::string file;    // its source file
    std::int64_t avgNs() const { return count ? totalNs / static_cast<std::int64_t>(count) : 0; }
    bool operator==(const KernelRow &) const = default;
};

struct StreamRow {
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::uint64_t count = 0;
    std::int64_t totalNs = 0;
    double percent = 0;
    bool operator==(const StreamRow &) const = default;
};

struct KernelTable {
    std::vector<KernelRow> rows;    // by total time, longest first
    std::vector<StreamRow> streams; // by device, then stream
    std::int64_t totalNs = 0;
    bool operator==(const KernelTable &) const = default;
};

// The op column of a kernel that graph replays ran.
inline constexpr std::string_view kGraphReplayOp = "graph replay";

KernelTable buildKernelTable(const TraceIndex &index, const KernelTableOptions &options = {},
                             const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
