#pragma once

#include "core/torch/inputspec.h"
#include "core/torch/runner.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::torch {

// A way of running the same TorchScript model, built from the loaded module with libtorch's
// JIT passes.
enum class VariantKind {
    Baseline,     // the module as loaded
    Frozen,       // torch::jit::freeze + optimize_for_inference (folds conv-bn, prepacks weights)
    ChannelsLast, // 4-D inputs and conv weights in channels_last memory format
    Int8Dynamic,  // frozen, then aten::linear, lstm and gru with constant weights on dynamic int8 weights
    Int8Static,   // convolutions and linears with int8 activations, calibrated on random batches
    BFloat16,     // parameters, buffers and floating inputs in bfloat16
    Threads,      // the baseline at another intra-op thread count
};

struct Variant {
    VariantKind kind = VariantKind::Baseline;
    int threads = 0;    // for Threads
    std::string engine; // for the int8 kinds: "qnnpack", "onednn", "fbgemm" or "x86"; empty: the default
    bool operator==(const Variant &) const = default;
};

// "baseline", "frozen", "channels_last", "int8" (dynamic), "int8_static", "bf16", "threads=2";
// an int8 kind on a named quantized engine as "int8@qnnpack", "int8_static@onednn".
std::string variantName(const Variant &variant);

// Parses a comma-separated list of variant names (aliases: int8_dynamic, bfloat16,
// channels-last). Duplicates are dropped.
Result<std::vector<Variant>> parseVariants(std::string_view text);

// The names parseVariants accepts, for help texts.
std::string knownVariantNames();

// How one variant did against the baseline on the same inputs.
struct VariantResult {
    Variant variant;
    std::string name;
    std::string error; // why it could not be built or run; empty when it ran
    std::string note;  // what was applied or left out ("2 linear layers quantized, engine fbgemm")
    LatencyStats latency;
    double throughputPerSecond = 0;
    double speedup = 0;              // baseline mean latency / this one's; 0 when either failed
    // Serialized size (torch::jit::Module::save to memory); for frozen, of the frozen module
    // before optimize_for_inference, whose MKLDNN weight constants Module::save leaves out.
    std::int64_t modelBytes = 0;
    std::optional<double> maxAbsDiff; // of its outputs against the baseline's; none when not comparable
    std::optional<double> relativeError; // ||out - base||2 / ||base||2
    bool ok() const { return error.empty(); }
    bool operator==(const VariantResult &) const = default;
};

struct CompareOptions {
    std::vector<InputSpec> inputs; // empty: those the model records
    std::vector<Variant> variants; // the baseline is always measured, first
    int warmup = 10;
    int iterations = 50;
    bool operator==(const CompareOptions &) const = default;
};

struct CompareReport {
    std::filesystem::path path;
    std::vector<InputSpec> inputs;
    std::string quantizationEngines; // libtorch's supported engines, "fbgemm, qnnpack"
    std::vector<VariantResult> rows; // the baseline first, then the variants in order
    bool operator==(const CompareReport &) const = default;
};

// Builds and times every variant on the same random inputs, checks its outputs against the
// baseline's and measures its serialized size. A variant that cannot be built or run gets its
// error and the others still run; only a model that cannot be loaded or whose baseline
// fails is an Error. onRow (may be empty) hears of each row as soon as it is measured.
using VariantCallback = std::function<void(const VariantResult &)>;
Result<CompareReport> compareVariants(const std::filesystem::path &path, const CompareOptions &options, const VariantCallback &onRow,
                                      ProgressReporter &progress, const StopToken &stop);

// Builds the variant of the model and saves it as TorchScript at out (written beside it, then
// renamed over it), recording inputs (empty: those the model records) as its example inputs,
// so that Pyrometer opens it ready to run. Returns what the variant applied. The baseline and
// threads=N are refused: they save nothing but the model itself.
Result<std::string> exportVariant(const std::filesystem::path &path, const Variant &variant, const std::vector<InputSpec> &inputs,
                                  const std::filesystem::path &out);

struct ProfileReport;

// A per-layer profile of one variant (torch::profileLayers on the variant's module, saved to a
// temporary TorchScript file next to nothing else and removed after). Frozen and int8 variants
// inline their submodules, so their time lands on the model's row. options.inputs: the
// baseline's shapes (empty: recorded); bf16 feeds them as bfloat16, threads=N runs N threads.
Result<ProfileReport> profileVariant(const std::filesystem::path &path, const Variant &variant, const RunOptions &options,
                                     ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::torch
