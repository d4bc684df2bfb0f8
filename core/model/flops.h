#pragma once
// Parameters and FLOPs per module: what both engines count from a forward run's recorded ops.

#include "core/analysis/opcost.h"
#include "core/analysis/opwork.h"
#include "core/model/inputspec.h"
#include "core/model/modelinfo.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::model {

// The shape-based formulas are shared with the trace analyses, which cost a trace's ops with them.
using analysis::OpArg;
using analysis::OpCost;
using analysis::opCost;
using analysis::OpRecord;

// Parameters and operations of one module, in depth-first order of the module tree.
// macs and flops include the submodules'; selfMacs and selfFlops are the module's own ops
// (for a container: what its forward does itself, such as a residual add).
struct FlopsRow {
    std::string module; // qualified name, "" for the model itself
    std::string type;   // "Conv2d"
    int depth = 0;
    bool leaf = true;
    int calls = 0;            // forward calls in one run
    std::uint64_t params = 0; // including submodules'
    double macs = 0;
    double flops = 0;
    double selfMacs = 0;
    double selfFlops = 0;
    // Minimum bytes its ops move (each reads its tensors once and writes its outputs once, at
    // their element sizes: weights and activations in and out); -1 when an op's sizes were not
    // recorded. Including submodules'.
    double bytes = 0;
    double selfBytes = 0;
    int elementBytes = 0; // of its ops' first tensors (4: float32, 2: bfloat16); 0 unknown
    std::string dtype;    // the same tensor's dtype as a trace writes it ("c10::Half"); "" unknown
    std::vector<std::vector<std::int64_t>> outputShapes; // of the last op of its first call
    bool operator==(const FlopsRow &) const = default;
};

// Counted as fvcore does: every top-level operator of one forward run, with its recorded
// argument shapes, costed by formula (opcost.h) and summed per module.
struct FlopsReport {
    std::filesystem::path path;
    std::vector<InputSpec> inputs;
    std::uint64_t params = 0;
    double totalMacs = 0;
    double totalFlops = 0; // 2 x MACs plus elementwise, normalization, pooling, softmax FLOPs
    std::vector<FlopsRow> rows;
    std::vector<std::string> uncountedOps; // op names without a formula (views, copies, ...)
    // Which engine and device ran it: "embedded libtorch 1.13.0 · cpu", "Python 3.13.5 · torch 2.6.0 · cuda".
    std::string engine;
    bool operator==(const FlopsReport &) const = default;
};

// Sums costed ops over model's module tree.
FlopsReport summarizeFlops(const ModelInfo &model, const std::vector<OpRecord> &ops);

// The qualified module name of a module hierarchy: {"TOP(ResNet)::forward",
// "layer1(Sequential)::forward", "0(BasicBlock)::forward"} -> "layer1.0". The first
// `levels` frames below TOP only when levels >= 0.
std::string moduleName(const std::vector<std::string> &frames, int levels = -1);

} // namespace pyrometer::model
