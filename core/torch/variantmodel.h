#pragma once
// Internal to core/torch's .cpp files: includes libtorch. Never include from a public header.

#include "core/torch/memoryobserver.h"
#include "core/torch/variant.h"
#include "core/util/energy.h"

#include <torch/script.h>

#include <functional>
#include <memory>

namespace pyrometer::torch {

// A variant built and ready to run.
struct VariantModel {
    Variant variant;
    ::torch::jit::Module module;
    bool channelsLast = false; // 4-D inputs go in channels_last
    bool bfloat16 = false;     // floating inputs go in bfloat16
    int threads = 0;           // intra-op threads while it runs; 0: as they are
    std::string note;
    // What a user would save when `module` does not serialize whole: optimize_for_inference
    // turns weights into MKLDNN constants, which Module::save leaves out.
    std::optional<::torch::jit::Module> saveable;

    // The inputs as this variant takes them.
    std::vector<c10::IValue> adapt(const std::vector<c10::IValue> &inputs) const;
    // One forward in InferenceMode; throws what libtorch throws.
    c10::IValue forward(const std::vector<c10::IValue> &inputs);
};

// Loads path afresh and applies the variant's passes; an Error says why it cannot apply.
// Callers check the file with inspectModel first, for its wording of what the file is.
// calibration: the input shapes int8 static fits its activation ranges on (random batches of
// them, apart from the inputs the variants are checked on); the other variants ignore it.
Result<VariantModel> buildVariant(const std::filesystem::path &path, const Variant &variant,
                                  const std::vector<InputSpec> &calibration = {});

// The variant as torch::jit::Module::save writes it (its saveable module where it has one),
// and that size; throw what libtorch throws.
std::string serializedModule(const VariantModel &model);
std::int64_t serializedBytes(const VariantModel &model);

// The size of bytes compressed by zlib at its default level; 0 if zlib fails.
std::int64_t zlibBytes(const std::string &bytes);

// What a compare row reports of a built variant besides its speed.
struct VariantCost {
    std::int64_t modelBytes = 0;
    std::int64_t compressedBytes = 0;
    std::int64_t params = 0;
    double macs = 0; // of one forward on the inputs given, as countFlops counts them
    std::optional<double> sparsity;
    std::vector<LayerSparsity> layers;
    // Convolutions libtorch runs on its native kernel instead of oneDNN, by its size rule.
    int nativeConvolutions = 0;
};
// Serializes, compresses, counts weights and records one forward; throws what libtorch throws.
VariantCost measureCost(VariantModel &model, const std::vector<c10::IValue> &adapted);

std::int64_t tensorBytes(const std::vector<c10::IValue> &values);

// The timed forwards: each one's wall time, and the energy all of them took together where the
// RAPL counters could be read around them, with the counters' idle draw over a wait before them.
struct TimedRuns {
    std::vector<double> samplesMs;
    std::optional<double> joules;
    double runSeconds = 0; // from the first reading to the last, around the timed runs
    std::optional<double> idleJoules;
    double idleSeconds = 0;  // the wait before the runs
    std::string energyError; // why a counter could not be read; empty when read or not asked
};

// Energy per inference (one sample of batch) of the timed runs, the machine's and above its
// idle draw; none without a reading.
std::optional<InferenceEnergy> energyPerInference(const TimedRuns &runs, int iterations, std::int64_t batch);

// Runs warmup untimed and iterations timed forwards at the variant's thread count, calling
// tick() after each; with an available energy probe, reads its counters over an idle wait
// after the warm-up (as long as the timed runs are expected to take, see idleWindow), then just
// before and after the timed ones. Returns nothing when stop was requested. Throws what libtorch throws.
std::optional<TimedRuns> timeForwards(VariantModel &model, const std::vector<c10::IValue> &inputs, int warmup,
                                      int iterations, const StopToken &stop, const std::function<void()> &tick,
                                      const EnergyProbe *energy = nullptr);

// The highest bytes libtorch's CPU allocator held above what it held at construction, for
// allocations made on this thread while the object lives (the allocator reports to the
// thread's PROFILER_STATE debug info, as it does for the profiler's memory events).
class AllocationPeak {
public:
    AllocationPeak();
    ~AllocationPeak();
    AllocationPeak(const AllocationPeak &) = delete;
    AllocationPeak &operator=(const AllocationPeak &) = delete;
    std::int64_t peak() const;

private:
    struct Reporter;
    std::shared_ptr<Reporter> m_reporter;
    std::unique_ptr<MemoryObserverGuard> m_guard;
};

// Sets libtorch's intra-op thread count for a scope (0 leaves it), and restores the count it
// found, whatever changed it meanwhile.
class ThreadCountScope {
public:
    explicit ThreadCountScope(int threads);
    ~ThreadCountScope();
    ThreadCountScope(const ThreadCountScope &) = delete;
    ThreadCountScope &operator=(const ThreadCountScope &) = delete;

private:
    int m_previous;
};

// An allocation failure: std::bad_alloc, or libtorch's "not enough memory" errors.
bool isOutOfMemory(const std::exception &error);

// Flattens outputs (tensors, tuples, lists, dicts) and compares them as float32.
struct OutputDiff {
    bool comparable = false;
    double maxAbsDiff = 0;
    double relativeError = 0;
};
OutputDiff compareOutputs(const c10::IValue &value, const c10::IValue &reference);

} // namespace pyrometer::torch
