// The measured roof of this CPU. Includes libtorch.
#include "core/torch/cpuroof.h"

#include "core/torch/modelfile.h"
#include "core/torch/variantmodel.h"
#include "core/util/atomicfile.h"

#include <nlohmann/json.hpp>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>

namespace pyrometer::torch {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Runs `step` until `budget` seconds have passed (at least once); returns the rate of `work`
// units per second.
template <typename Step>
double rate(double budget, double work, Step step)
{
    const auto start = Clock::now();
    int calls = 0;
    do {
        step();
        ++calls;
    } while (secondsSince(start) < budget);
    return work * calls / secondsSince(start);
}

} // namespace

std::string cpuModelName()
{
    std::ifstream info("/proc/cpuinfo");
    std::string line;
    while (std::getline(info, line)) {
        if (line.rfind("model name", 0) != 0)
            continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            break;
        auto name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(" \t"));
        return name;
    }
    return "unknown CPU";
}

Result<CpuRoof> measureCpuRoof(int threads, double seconds, int repetitions, const StopToken &stop)
{
    ThreadCountScope scope(threads);
    c10::InferenceMode inference;
    CpuRoof roof;
    roof.cpu = cpuModelName();
    roof.threads = at::get_num_threads();
    roof.torch = torchVersion();
    repetitions = std::max(1, repetitions);
    const double budget = std::max(0.01, seconds / (3.0 * repetitions));
    // Two GEMMs, the faster sets the roof: a 1024^3 matrix product (libtorch's BLAS: Debian's
    // libtorch runs the reference BLAS, some 6 GFLOP/s a core) and a 3x3 convolution of 256
    // channels, oneDNN's implicit GEMM, which runs near the CPU's FMA peak (120 GFLOP/s on one
    // core of an EPYC here). A layer faster than the roof would say the roof is wrong.
    constexpr std::int64_t n = 1024;
    const auto a = ::torch::rand({n, n});
    const auto b = ::torch::rand({n, n});
    auto c = ::torch::empty({n, n});
    const auto image = ::torch::rand({4, 256, 32, 32});
    const auto kernel = ::torch::rand({256, 256, 3, 3});
    const double convolutionFlops = 2.0 * 4 * 256 * 32 * 32 * 256 * 9;
    const auto convolve = [&] { (void)at::conv2d(image, kernel, {}, 1, 1); };
    // A copy well past any cache: 256 MiB read, 256 MiB written.
    constexpr std::int64_t elements = std::int64_t(64) << 20;
    const auto source = ::torch::rand({elements});
    auto target = ::torch::empty({elements});
    constexpr std::int64_t cached = kCacheCopyBytes / 2 / std::int64_t(sizeof(float));
    const auto cachedSource = ::torch::rand({cached});
    auto cachedTarget = ::torch::empty({cached});
    // Warm the caches, the allocator, oneDNN's kernels and the thread pool first.
    at::mm_out(c, a, b);
    convolve();
    target.copy_(source);
    for (int r = 0; r < repetitions; ++r) {
        if (stop.stopRequested())
            return Error{"the CPU roof measurement was cancelled"};
        const double product = rate(budget, 2.0 * n * n * n, [&] { at::mm_out(c, a, b); });
        const double convolution = rate(budget, convolutionFlops, convolve);
        roof.gemmRuns.push_back(std::max(product, convolution));
        roof.copyRuns.push_back(rate(budget, 2.0 * double(elements) * sizeof(float), [&] { target.copy_(source); }));
        roof.cacheRuns.push_back(
            rate(budget / 4, 2.0 * double(cached) * sizeof(float), [&] { cachedTarget.copy_(cachedSource); }));
    }
    // The median repetition: on a shared machine one repetition can run far above or below the
    // others (a neighbour's load, a thread the pool lent), and the roof must not follow it.
    const auto median = [](std::vector<double> values) {
        std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(values.size() / 2), values.end());
        return values[values.size() / 2];
    };
    roof.gemmFlops = median(roof.gemmRuns);
    roof.copyBandwidth = median(roof.copyRuns);
    roof.cacheBandwidth = median(roof.cacheRuns);
    return roof;
}

analysis::DeviceRoof cpuDevice(const CpuRoof &roof)
{
    analysis::DeviceRoof device;
    device.name = roof.cpu + " (" + std::to_string(roof.threads) + (roof.threads == 1 ? " thread" : " threads") + ", measured)";
    device.bandwidth = roof.copyBandwidth;
    if (roof.cacheBandwidth > roof.copyBandwidth) {
        device.cacheBandwidth = roof.cacheBandwidth;
        device.cacheName = "cache";
    }
    device.vectorFlops = roof.gemmFlops;
    device.matrixFlops.fill(roof.gemmFlops);
    device.source = "measured on this machine: the faster of a 1024^3 FP32 matrix product and a 3x3 convolution of 256 "
                    "channels, a 256 MiB copy and a 1 MiB copy (the cache), with libtorch " +
                    roof.torch;
    device.measured = true;
    return device;
}

std::filesystem::path defaultCpuRoofCache()
{
    std::filesystem::path base;
    if (const char *cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
        base = cache;
    else if (const char *home = std::getenv("HOME"); home && *home)
        base = std::filesystem::path(home) / ".cache";
    else
        base = std::filesystem::temp_directory_path();
    return base / "pyrometer" / "cpu-roof.json";
}

Result<CpuRoof> thisCpuRoof(int threads, const std::filesystem::path &cacheFile, const StopToken &stop)
{
    const auto cpu = cpuModelName();
    const int effective = threads > 0 ? threads : at::get_num_threads();
    // One entry per (CPU, threads, libtorch): a file shared by machines with one home directory
    // keeps each machine's figures apart.
    const auto key = cpu + " | " + std::to_string(effective) + " | " + torchVersion();
    nlohmann::json cache = nlohmann::json::object();
    if (const auto text = readWholeFile(cacheFile); text.ok()) {
        cache = nlohmann::json::parse(text.value(), nullptr, false);
        if (!cache.is_object())
            cache = nlohmann::json::object();
    }
    if (const auto it = cache.find(key); it != cache.end() && it->is_object()) {
        CpuRoof roof;
        roof.cpu = cpu;
        roof.threads = effective;
        roof.torch = torchVersion();
        roof.gemmFlops = it->value("gemm_flops", 0.0);
        roof.copyBandwidth = it->value("copy_bandwidth", 0.0);
        roof.gemmRuns = it->value("gemm_runs", std::vector<double>{});
        roof.copyRuns = it->value("copy_runs", std::vector<double>{});
        roof.cacheBandwidth = it->value("cache_bandwidth", 0.0);
        roof.cacheRuns = it->value("cache_runs", std::vector<double>{});
        if (roof.gemmFlops > 0 && roof.copyBandwidth > 0 && roof.cacheBandwidth > 0)
            return roof;
    }
    auto measured = measureCpuRoof(effective, 3.0, 5, stop);
    if (!measured.ok())
        return measured;
    const auto &roof = measured.value();
    cache[key] = {
        {"gemm_flops", roof.gemmFlops}, {"copy_bandwidth", roof.copyBandwidth},   {"gemm_runs", roof.gemmRuns},
        {"copy_runs", roof.copyRuns},   {"cache_bandwidth", roof.cacheBandwidth}, {"cache_runs", roof.cacheRuns}};
    std::error_code error;
    std::filesystem::create_directories(cacheFile.parent_path(), error);
    (void)writeFileAtomically(cacheFile, cache.dump(2) + "\n"); // not cached: measured again next time
    return measured;
}

} // namespace pyrometer::torch
