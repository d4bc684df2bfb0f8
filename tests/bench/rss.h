#pragma once

// Resident memory of this process, for benchmarks that print it (Linux).
#include <sys/resource.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace pyrometer::bench {

// The most this process has held resident, in MiB.
inline double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// What this process holds resident now, in MiB.
inline double currentRssMb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0)
            return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    }
    return 0;
}

} // namespace pyrometer::bench
