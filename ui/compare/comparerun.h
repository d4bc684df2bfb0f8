#pragma once

#include "core/analysis/diff.h"
#include "core/analysis/flamegraph.h"
#include "core/engine/engine.h"
#include "core/model/layerdelta.h"
#include "core/model/variant.h"
#include "core/util/progress.h"
#include "core/util/result.h"
#include "ui/workspace/document.h"

#include <memory>
#include <string>
#include <vector>

namespace pyrometer::trace {
class Trace;
}

namespace pyrometer::ui {

// What the Compare page asks of a model: text where the user typed text, so that a bad spec
// fails inside the job like any other error.
struct VariantsRequest {
    std::filesystem::path model;
    engine::Engine engine; // empty python: the embedded engine
    // Shapes ("1x3x224x224"), or samples saved by torch.save and their labels ("val.pt,
    // val_labels.pt", relative to the model's folder) to score every variant on; empty: the
    // inputs the model records.
    std::string inputSpec;
    std::string variants;  // "baseline,frozen,int8"
    int warmup = 3;
    int iterations = 20;
    bool layers = true; // also profile each variant layer by layer
};

struct VariantLayers {
    std::string variant;
    std::string error; // why it has no per-layer profile
    std::vector<model::LayerDelta> deltas; // against the baseline's profile
    // The profiled operators' call trees against the baseline's, as a diff flame graph per
    // forward pass (the profiled runs' times and calls over their number, as the per-layer
    // deltas are), the profiler's overhead included; null when either profile could not be
    // read back.
    std::shared_ptr<const analysis::FlameGraph> flame;
};

struct VariantsRun {
    model::CompareReport report;
    std::vector<VariantLayers> layers; // one per variant after the baseline that ran
    int profiledRuns = 0;              // per variant, for the per-layer deltas and flame graphs
};

// Compares the variants, then profiles the baseline and every variant that ran layer by
// layer: the whole of one "Run compare", on a worker thread. An error that tells how to give
// input shapes names the Inputs field, not pyrometer-cli's flag.
Result<VariantsRun> runVariants(const VariantsRequest &request, ProgressReporter &progress, const StopToken &stop);

// message with pyrometer-cli's hint for missing input shapes (model::kGiveInputsHint) told as
// a window tells it: type them in the Inputs field.
std::string withInputsFieldHint(std::string message);

// Two loaded traces compared: op and kernel deltas, and the diff flame graph (widths from the
// other trace, the base's values kept for colour by change; steps merged, threads merged,
// since thread names and step numbers differ between runs).
struct TracesComparison {
    analysis::TraceDiff diff;
    std::shared_ptr<const analysis::FlameGraph> flame;
};
Result<TracesComparison> diffLoadedTraces(const TraceDocument &base, const TraceDocument &other,
                                             ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::ui
