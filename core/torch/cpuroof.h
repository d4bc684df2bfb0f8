#pragma once

#include "core/analysis/deviceroof.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::torch {

// This machine's roof as the embedded libtorch reaches it: a sustained FP32 GEMM and a
// streaming copy, measured, never read off a spec sheet (a CPU's peak depends on its clocks
// under load, its vector units and the threads given).
struct CpuRoof {
    std::string cpu;     // the CPU's model name (/proc/cpuinfo), which the cache is keyed by
    int threads = 0;     // libtorch intra-op threads it ran with
    std::string torch;   // the libtorch version
    double gemmFlops = 0;     // FLOP/s: the median of the GEMM repetitions
    double copyBandwidth = 0; // bytes/s read and written: the median of the copy repetitions
    // bytes/s of a copy that stays in the cache (kCacheCopyBytes): what data a layer reuses from
    // the cache can reach, above copyBandwidth.
    double cacheBandwidth = 0;
    std::vector<double> gemmRuns; // each repetition's FLOP/s, in order
    std::vector<double> copyRuns; // each repetition's bytes/s
    std::vector<double> cacheRuns;
    bool operator==(const CpuRoof &) const = default;
};

// The CPU's model name, e.g. "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"; "unknown CPU".
std::string cpuModelName();

// The cache copy's source and target together: within the last-level cache of any x86-64 CPU of
// the last decade.
inline constexpr std::int64_t kCacheCopyBytes = std::int64_t(1) << 20;

// Measures the roof, the median of `repetitions` of a GEMM (the faster of a 1024^3 FP32 matrix product and a
// 3x3 convolution of 256 channels, oneDNN's implicit GEMM) and of a 256 MiB copy, each about
// `seconds` / (3 x repetitions) long, with `threads` intra-op threads (0: libtorch's default).
// Checks stop between repetitions.
Result<CpuRoof> measureCpuRoof(int threads, double seconds, int repetitions, const StopToken &stop = {});

// The roof as a device: the GEMM rate for every precision (a CPU's FP32 GEMM is its matrix and
// vector peak alike; bfloat16 on a CPU without native support is slower, never faster), the
// copy's bandwidth, and the cache copy's as its cache.
analysis::DeviceRoof cpuDevice(const CpuRoof &roof);

// The measured roof of this CPU at `threads`, from the cache file when it holds one for this
// CPU, thread count and libtorch, else measured (about three seconds) and stored there. A
// cache that cannot be read or written only costs the measurement.
Result<CpuRoof> thisCpuRoof(int threads, const std::filesystem::path &cacheFile, const StopToken &stop = {});

// $XDG_CACHE_HOME/pyrometer/cpu-roof.json, else ~/.cache/pyrometer/cpu-roof.json.
std::filesystem::path defaultCpuRoofCache();

} // namespace pyrometer::torch
