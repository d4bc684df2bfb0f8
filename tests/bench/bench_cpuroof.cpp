// The CPU roof measurement's spread: five measurements (each the best of its repetitions of a
// 1024^3 FP32 GEMM and a 256 MiB copy), their figures and how far apart they lie. A roof that
// moves by more than a few percent between runs cannot place a layer within it.
//   cpuroof_bench [RUNS=5] [SECONDS=2] [THREADS=0]
#include "core/torch/cpuroof.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace pyrometer;

namespace {

void printSpread(const char *what, std::vector<double> values, double unit, const char *unitName)
{
    std::sort(values.begin(), values.end());
    const double median = values[values.size() / 2];
    std::printf("%-14s min %8.2f  median %8.2f  max %8.2f %s  spread (max-min)/median %5.2f%%\n", what, values.front() / unit,
                median / unit, values.back() / unit, unitName, 100 * (values.back() - values.front()) / median);
}

} // namespace

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const double seconds = argc > 2 ? std::max(0.1, std::atof(argv[2])) : 2.0;
    const int threads = argc > 3 ? std::max(0, std::atoi(argv[3])) : 0;
    std::vector<double> gemm;
    std::vector<double> copy;
    std::printf("CPU: %s\n", torch::cpuModelName().c_str());
    for (int run = 0; run < runs; ++run) {
        const auto roof = torch::measureCpuRoof(threads, seconds, 3);
        if (!roof.ok()) {
            std::fprintf(stderr, "%s\n", roof.error().message.c_str());
            return 1;
        }
        gemm.push_back(roof->gemmFlops);
        copy.push_back(roof->copyBandwidth);
        std::printf("run %d: %d threads, GEMM %.2f GFLOP/s, copy %.2f GB/s (ridge %.2f FLOP/byte)\n", run + 1, roof->threads,
                    roof->gemmFlops / 1e9, roof->copyBandwidth / 1e9, roof->gemmFlops / roof->copyBandwidth);
    }
    printSpread("GEMM", gemm, 1e9, "GFLOP/s");
    printSpread("copy", copy, 1e9, "GB/s");
    return 0;
}
