#pragma once

#include "core/model/flops.h"
#include "core/model/latency.h"
#include "core/model/profileevents.h"

#include <filesystem>
#include <vector>

namespace pyrometer::model {

// One module of the per-layer profile, in depth-first order (a tree through depth).
// Times are means per profiled iteration.
struct LayerRow {
    std::string module; // qualified name, "" for the model
    std::string type;
    int depth = 0;
    bool leaf = true;
    int calls = 0;      // forward calls per iteration
    double selfMs = 0;  // in ops the module runs itself, not in its submodules
    double totalMs = 0; // including submodules
    double percent = 0; // totalMs as a share of the forward pass
    std::vector<std::vector<std::int64_t>> outputShapes;
    std::uint64_t params = 0;
    double macs = 0;
    double flops = 0;
    double gflopsPerSecond = 0; // flops / totalMs
    double bytes = 0;           // FlopsRow::bytes: moved by its ops, -1 unknown
    int elementBytes = 0;       // FlopsRow::elementBytes
    std::string dtype;          // FlopsRow::dtype
    // On a device (ProfileReport::deviceTimes): the device time of the kernels its ops launched,
    // per iteration, without and with its submodules'.
    double selfDeviceMs = 0;
    double deviceMs = 0;
    std::int64_t allocatedBytes = 0;     // allocated during its ops, including submodules
    std::int64_t selfAllocatedBytes = 0; // allocated during its own ops
    bool operator==(const LayerRow &) const = default;
};

struct ProfileReport {
    std::filesystem::path path;
    std::vector<InputSpec> inputs;
    RunMode mode = RunMode::Inference;
    int iterations = 0;
    double forwardMs = 0; // mean wall time of one profiled iteration (synchronized on a device)
    // Whether the ops carry the device time of what they launched (the Python engine on CUDA):
    // the layers' deviceMs, and deviceForwardMs, the device time of one iteration's kernels.
    bool deviceTimes = false;
    double deviceForwardMs = 0;
    // Highest CPU memory allocated during a profiled iteration above what was allocated
    // before it (activations and workspaces; weights and inputs are excluded).
    std::int64_t peakMemoryBytes = 0;
    double totalMacs = 0;
    double totalFlops = 0;
    std::vector<LayerRow> rows;
    RecordedProfile events; // for the trace export
    // Which engine and device ran it: "embedded libtorch 1.13.0 · cpu", "Python 3.13.5 · torch 2.6.0 · cuda".
    std::string engine;
    // The trace the engine wrote itself (the Python engine: torch.profiler's, with GPU kernels on
    // CUDA); empty when events are to be exported (the embedded engine).
    std::filesystem::path trace;
    // What the per-layer rows could not show, said once (a module hierarchy this torch does not record).
    std::string note;
    bool operator==(const ProfileReport &) const = default;
};

// Attributes each outermost op of events to its module.
ProfileReport summarizeProfile(const FlopsReport &flops, const RecordedProfile &events);

} // namespace pyrometer::model
