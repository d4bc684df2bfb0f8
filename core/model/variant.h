#pragma once

#include "core/model/inputspec.h"
#include "core/model/latency.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::model {

// A way of running the same model: built from the loaded module with libtorch's JIT passes in
// the embedded engine, with torch's own API in the Python engine.
enum class VariantKind {
    Baseline,      // the module as loaded
    Frozen,        // torch::jit::freeze + optimize_for_inference (folds conv-bn, prepacks weights)
    ChannelsLast,  // 4-D inputs and conv weights in channels_last memory format
    Int8Dynamic,   // frozen, then aten::linear, lstm and gru with constant weights on dynamic int8 weights
    Int8Static,    // convolutions and linears with int8 activations, calibrated on random batches
    BFloat16,      // parameters, buffers and floating inputs in bfloat16
    Threads,       // the baseline at another intra-op thread count
    PruneL1,       // the smallest-magnitude weights of every Conv and Linear set to zero (unstructured)
    PruneChannels, // the lowest-L1 output channels of Convs and Linears removed, with their consumers' inputs
    // The Python engine's, of torch 2.x (the embedded engine refuses them, naming that engine):
    Compile,    // torch.compile (Inductor)
    Float16,    // fp16 autocast (bf16 there is bf16 autocast)
    CudaGraphs, // torch.compile(mode="reduce-overhead"): CUDA graphs, on a GPU
};

struct Variant {
    VariantKind kind = VariantKind::Baseline;
    int threads = 0;     // for Threads
    std::string engine;  // for the int8 kinds: "qnnpack", "onednn", "fbgemm" or "x86"; empty: the default
    double amount = 0;   // for the prune kinds: the fraction of weights (PruneL1) or channels (PruneChannels) removed
    bool global = false; // PruneL1: the smallest weights of the whole model, rather than of each layer
    bool operator==(const Variant &) const = default;
};

// "baseline", "frozen", "channels_last", "int8" (dynamic), "int8_static", "bf16", "threads=2",
// "prune_l1=0.5" (per layer), "prune_l1_global=0.5", "prune_channels=0.3"; an int8 kind on a
// named quantized engine as "int8@qnnpack", "int8_static@onednn".
std::string variantName(const Variant &variant);

// Parses a comma-separated list of variant names (aliases: int8_dynamic, bfloat16,
// channels-last). Duplicates are dropped.
Result<std::vector<Variant>> parseVariants(std::string_view text);

// The names parseVariants accepts, for help texts.
std::string knownVariantNames();

// The zero weights of one Conv or Linear module.
struct LayerSparsity {
    std::string module; // "layer1.0.conv1"
    std::string type;   // "Conv2d"
    std::int64_t weights = 0;
    std::int64_t zeros = 0;
    double fraction() const { return weights > 0 ? double(zeros) / double(weights) : 0; }
    bool operator==(const LayerSparsity &) const = default;
};

// How one variant did against the baseline on the same inputs.
struct VariantResult {
    Variant variant;
    std::string name;
    std::string error; // why it could not be built or run; empty when it ran
    std::string note;  // what was applied or left out ("2 linear layers quantized, engine fbgemm")
    LatencyStats latency;
    double throughputPerSecond = 0;
    double speedup = 0; // baseline mean latency / this one's; 0 when either failed
    // The speedup's 95% confidence interval from both sets of timed runs (interleaved with the
    // baseline's); none with fewer than two runs. Holding 1: within noise.
    std::optional<Interval> speedupInterval;
    // Serialized size (torch::jit::Module::save to memory); for frozen, of the frozen module
    // before optimize_for_inference, whose MKLDNN weight constants Module::save leaves out.
    std::int64_t modelBytes = 0;
    std::optional<double> maxAbsDiff;    // of its outputs against the baseline's; none when not comparable
    std::optional<double> relativeError; // ||out - base||2 / ||base||2
    std::int64_t compressedBytes = 0;    // the serialized module through zlib (level 6)
    // Weights the variant holds (parameters, or a frozen or int8 module's constant and packed
    // weights), and multiply-accumulates of one forward, counted as countFlops counts them.
    std::optional<std::int64_t> params;
    std::optional<double> macs;
    // The fraction of zero weights in its Conv and Linear layers, and per layer; none where the
    // weights are not module attributes (frozen, int8).
    std::optional<double> sparsity;
    std::vector<LayerSparsity> layerSparsity;
    // On CompareOptions::data: top-1 accuracy against the labels (none without labels) and
    // top-1 agreement with the baseline's predictions, as fractions.
    std::optional<double> accuracy;
    std::optional<double> accuracyChange; // accuracy minus the baseline's, in percentage points
    std::optional<double> agreement;
    // Energy of the timed runs per inference (one sample of the batch), from the RAPL counters
    // (package and DRAM): above the machine's idle draw, and all the counters saw (idle and other
    // processes included); none where they cannot be read (CompareReport::energyUnavailable).
    std::optional<double> energyMjPerInference;
    std::optional<double> machineEnergyMjPerInference;
    std::optional<double> idlePowerW; // the counters' draw over a wait before the timed runs
    bool ok() const { return error.empty(); }
    bool operator==(const VariantResult &) const = default;
};

struct CompareOptions {
    std::vector<InputSpec> inputs; // empty: those the model records
    std::vector<Variant> variants; // the baseline is always measured, first
    int warmup = 10;
    int iterations = 50;
    // Inputs saved by torch.save (a tensor, or a tuple of one per model input, first dimension
    // the samples) and their int64 class labels (optional): each variant's top-1 accuracy and
    // agreement with the baseline, evaluated in batches. Empty: none.
    std::filesystem::path data;
    std::filesystem::path labels;
    // Where the RAPL energy counters are (Linux's powercap tree); tests point it elsewhere.
    std::filesystem::path powercapRoot = "/sys/class/powercap";
    bool operator==(const CompareOptions &) const = default;
};

struct CompareReport {
    std::filesystem::path path;
    std::vector<InputSpec> inputs;
    std::string quantizationEngines; // libtorch's supported engines, "fbgemm, qnnpack"
    std::vector<VariantResult> rows; // the baseline first, then the variants in order
    // What the accuracy figures were measured on ("200 samples of val.pt in batches of 32,
    // labels val_labels.pt"); empty without data.
    std::string dataNote;
    // Why there is no energy figure, said once ("/sys/class/powercap: no such directory"); empty
    // when the counters were read.
    std::string energyUnavailable;
    // Which engine and device ran it: "embedded libtorch 1.13.0 · cpu", "Python 3.13.5 · torch 2.6.0 · cuda".
    std::string engine;
    bool operator==(const CompareReport &) const = default;
};

// What a variant loses against the baseline on the data, in percentage points: the accuracy
// it drops with labels, else the share of samples whose prediction changed (100 - agreement);
// none without data. What `compare --max-accuracy-drop` judges.
std::optional<double> accuracyDrop(const VariantResult &row);

// 1000 / millijoules per inference; none without an energy figure.
std::optional<double> inferencesPerJoule(const std::optional<double> &energyMjPerInference);

// Hears of each variant's row as soon as it is measured.
using VariantCallback = std::function<void(const VariantResult &)>;

} // namespace pyrometer::model
