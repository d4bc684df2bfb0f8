#pragma once

#include "core/util/result.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::record {

// What a recorded program's memory held, by category, over time: written by the launcher
// beside each trace (<stem>.pt.memory.json). With torch >= 2.1 it is the profiler's memory
// timeline (every allocation); with older torch the launcher's own samples at step boundaries.
enum class MemoryCategory { Parameters, Gradients, OptimizerState, Activations, Inputs, Temporaries, Other };
inline constexpr std::size_t kMemoryCategoryCount = 7;

// "parameters", "optimizer_state", … (the file's names) and "Parameters", "Optimizer state", …
std::string_view memoryCategoryKey(MemoryCategory category);
std::string_view memoryCategoryLabel(MemoryCategory category);

struct MemorySample {
    double seconds = 0;    // since the program started (launcher) or since the first event (profiler)
    int step = -1;         // the marked step it belongs to, counted by the launcher from 0; -1 when not known
    int profilerStep = -1; // N of the trace's ProfilerStep#N it was taken in; -1 when not known
    std::string phase;     // "forward_start", "forward_end", "step_end" or "event"
    bool recorded = false; // taken during a recorded step
    std::array<std::int64_t, kMemoryCategoryCount> bytes{};

    std::int64_t total() const;
    bool operator==(const MemorySample &) const = default;
};

struct MemoryCategories {
    std::string source;             // "launcher" or "profiler"
    std::string device;             // "cpu" or "cuda"
    std::string allocator;          // where the total came from
    std::string resolution;         // "3 samples per step (…)"
    std::int64_t baselineBytes = 0; // in use before the program started, left out
    std::vector<MemorySample> samples;
    bool operator==(const MemoryCategories &) const = default;
};

// The memory file beside a trace: "X.pt.trace.json.gz" → "X.pt.memory.json" (empty when the
// name is not of the TensorBoard layout).
std::filesystem::path memoryFileFor(const std::filesystem::path &trace);

// Reads a memory file; the Error names it and says what is wrong.
Result<MemoryCategories> loadMemoryCategories(const std::filesystem::path &path);

// The sample where the total is highest (of recorded samples where there are some), and
// what it held. Empty categories: index is npos.
struct MemoryPeak {
    std::size_t index = std::size_t(-1);
    MemorySample sample;
    bool found() const { return index != std::size_t(-1); }
};
MemoryPeak memoryPeak(const MemoryCategories &categories);

// Where a sample was taken: the step as the trace's ProfilerStep#N names it, else as the
// program's marked step counted from 0 (files written before the profiler's step was kept),
// and its phase: "ProfilerStep#3, forward end", "the program's step 4, step end", "event".
std::string memorySamplePlace(const MemorySample &sample);

// Per category, the largest value it reached over the samples (recorded ones where there are some).
std::array<std::int64_t, kMemoryCategoryCount> categoryMaxima(const MemoryCategories &categories);

} // namespace pyrometer::record
