#pragma once

#include "core/analysis/traceindex.h"
#include "core/analysis/workclass.h"
#include "core/util/progress.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// Figures of one rank of a distributed job: pure functions of its trace, so that ranks are
// summarised one at a time and only these summaries are kept.

// A collective's name as torch spells it in annotations and args ("nccl:all_reduce",
// "allreduce", "_all_gather_base", "reduce_scatter_tensor", "gloo:all_reduce", "alltoall_base",
// ...) reduced to one of: all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce,
// send, recv, send_recv, barrier, gather, scatter; anything else is returned without its
// "nccl:"/"gloo:" prefix.
std::string canonicalCollective(std::string_view name);

// nccl-tests' bus-bandwidth factor for a canonical collective among n ranks: all_reduce
// 2(n-1)/n; all_gather, reduce_scatter and all_to_all (n-1)/n; everything else 1.
double busBandwidthFactor(std::string_view canonicalName, int ranks);

// Bytes of one element of a dtype as torch writes it ("float", "Float", "c10::Half",
// "BFloat16", "unsigned char", "long int", "int", "double", ...); 0 when unknown.
int dtypeBytes(std::string_view dtype);

struct CollectiveCall {
    std::string name;         // canonical
    std::int64_t bytes = -1;  // message bytes (the larger of input and output); -1 when unknown
    int groupSize = -1;       // ranks taking part; -1 when the trace does not say
    std::int64_t startNs = 0; // the GPU kernel's span when there is one, else the CPU annotation's
    std::int64_t endNs = 0;
    bool onDevice = false;
    // The process group, as torch 2.x writes it on record_param_comms and NCCL kernels; empty
    // (and -1) when the trace does not say.
    std::string group{};        // "Process Group Name": "0", "1", ... (the same on every member)
    std::string groupDesc{};    // "Process Group Description": "default_pg", "mesh_tp", ...
    std::string groupRanks{};   // "Process Group Ranks" as written: "[0, 1, 2, 3]"
    std::int64_t sequence = -1; // "Seq": the call's number in its group
    bool hasGroup() const { return !group.empty() || !groupRanks.empty(); }
    bool operator==(const CollectiveCall &) const = default;
};

struct RankStep {
    std::string name;             // "ProfilerStep#12"
    std::int64_t startNs = 0;     // the step's CPU annotation
    std::int64_t durationNs = 0;
    std::int64_t computeNs = 0;   // union of the computation the step launched (stepspans.h;
    std::int64_t communicationNs = 0; // CPU-only: in its CPU annotation)
    std::int64_t gpuStartNs = 0;  // the step's device work, first start to last end; 0 and 0
    std::int64_t gpuEndNs = 0;    // without any
    // Its communication that no computation of the step overlaps; -1 when unknown (a rank
    // summary written before it was kept).
    std::int64_t exposedCommunicationNs = -1;
    bool operator==(const RankStep &) const = default;
};

struct RankFigures {
    int rank = -1;      // from distributedInfo; -1 when the trace has none
    int worldSize = -1;
    std::string backend;
    std::string file;   // the trace's path, as given

    std::vector<RankStep> steps; // ProfilerStep#N annotations, in time order
    double stepTimeUs = 0;       // stepMean() of the steps' CPU annotations (partial and warm-up
                                 // steps left out); 0 without steps

    // What the split covers: from the first step's start to the last step's end (the later of
    // its CPU end and the end of its device work), or the span of the device events (CPU-only:
    // of the ops) when the trace has no steps.
    std::int64_t windowStartNs = 0;
    std::int64_t windowEndNs = 0;

    // Unions of intervals over all streams, clipped to the window.
    std::int64_t computeNs = 0;       // kernels that do not communicate (CPU-only: top-level ops
                                      // outside collectives)
    std::int64_t communicationNs = 0; // NCCL/RCCL kernels (CPU-only: gloo annotations)
    std::int64_t memoryNs = 0;        // memcpy and memset
    std::int64_t idleNs = 0;          // the window less the union of all three
    std::int64_t overlapNs = 0;       // |communication ∩ compute|
    double overlapPct = 0;            // 100 x overlap / communication; 0 without communication

    // A partition of the window, for stacked bars: these five add up to window length.
    std::int64_t computeOnlyNs = 0;          // compute without communication
    std::int64_t hiddenCommunicationNs = 0;  // = overlapNs
    std::int64_t exposedCommunicationNs = 0; // communication without compute
    std::int64_t memoryOnlyNs = 0;           // memory without compute or communication

    bool cpuOnly = false; // no device events: gloo annotations and CPU ops stand in
    std::vector<CollectiveCall> collectives; // in time order
    // Set, naming the file, when the rank's trace could not be read (summariseRanks); the
    // figures are then empty.
    std::string loadError{};
    // The trace file the figures were made from, when they were read from a rank summary: its
    // size and CRC-32, to tell whether a file found at `file` now is the same one. 0 and 0 when
    // the figures were made here from the trace itself.
    std::uint64_t summarisedBytes = 0;
    std::uint32_t summarisedCrc32 = 0;

    int stepCount() const { return static_cast<int>(steps.size()); }
    std::int64_t windowNs() const { return windowEndNs - windowStartNs; }
    // Compute per step (the straggler figure): computeNs / steps, or computeNs without steps.
    double computePerStepUs() const;
    // The index of the step a collective call belongs to: on the device, the step whose device
    // work spans its start; else (or where none does) the last step that starts by then. -1
    // before the first step or without steps.
    int stepOf(const CollectiveCall &call) const;
    bool operator==(const RankFigures &) const = default;
};

// The figures of the rank whose trace index is given. file is copied into the result; rank,
// world size and backend come from the trace's distributedInfo. Returns figures with no steps
// and zero times when stopped.
RankFigures rankFigures(const TraceIndex &index, const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
