#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// The number formats a roof is given for.
enum class Precision { FP64, FP32, TF32, BF16, FP16, FP8, INT8 };
inline constexpr std::size_t kPrecisionCount = 7;
std::string_view precisionName(Precision precision); // "FP32", "BF16", ...

// The roof of one device: peak arithmetic per precision and memory bandwidth. Peaks are dense
// (no structured sparsity), at boost clock, for what torch calls one device (one GCD of an
// AMD MI250X). A peak of 0 means the device has no such units.
struct DeviceRoof {
    std::string name;                  // "NVIDIA H100 SXM5 80GB"
    double bandwidth = 0;              // bytes/s of its main memory
    // A faster level of memory whose bandwidth is known (a CPU's last-level cache, measured): data
    // that stays in it beats the main memory's roof. 0 when unknown.
    double cacheBandwidth = 0;
    std::string cacheName;             // "LLC"
    double vectorFlops = 0;            // FP32 FLOP/s of its vector (CUDA) cores
    std::array<double, kPrecisionCount> matrixFlops{}; // FLOP/s (OP/s for INT8) of its matrix units, by Precision
    std::string source;                // where the figures come from
    bool nvidia = false;               // cuDNN takes FP32 convolutions as TF32 (torch's default)
    bool measured = false;             // measured on this machine (a CPU), not a spec sheet
    double matrix(Precision p) const { return matrixFlops[static_cast<std::size_t>(p)]; }
    bool operator==(const DeviceRoof &) const = default;
};

// Every device of the table, in the order the README lists them.
const std::vector<DeviceRoof> &deviceTable();
// The table's entry for a device name as a trace's "deviceProperties" or the user writes it
// ("NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-32GB", "h100 pcie", "MI300X"); nothing when no
// entry matches (an "AMD Radeon Graphics" says too little).
std::optional<DeviceRoof> findDevice(std::string_view name);

// A device the table lacks, from its peak (FLOP/s, every precision) and bandwidth (bytes/s), as
// the user gives them in Preferences or to pyrometer-cli roofline --peak --bandwidth.
DeviceRoof customDevice(std::string name, double peakFlops, double bandwidth);

} // namespace pyrometer::analysis
