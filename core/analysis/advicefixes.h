#pragma once

#include "core/trace/trace.h"

#include <string>
#include <string_view>

namespace pyrometer::analysis {

// What the run's device and torch offer, as far as the trace says: advice suggests only what
// exists there, and words the rest conditionally.
struct Platform {
    enum class Device { Cpu, NvidiaGpu, AmdGpu, UnknownGpu };
    Device device = Device::UnknownGpu;
    std::string deviceName;
    int computeMajor = -1; // NVIDIA compute capability; -1 unknown
    int computeMinor = -1;
    int torchMajor = -1; // -1: the trace does not name its torch
    int torchMinor = -1;
    bool operator==(const Platform &) const = default;

    bool torchKnown() const { return torchMajor >= 0; }
    bool torchAtLeast(int major, int minor) const
    {
        return torchMajor > major || (torchMajor == major && torchMinor >= minor);
    }
};

Platform platformOf(const trace::TraceInfo &info, bool hasDevice);

// False only where the device is known to lack tensor cores (NVIDIA before Volta).
bool hasTensorCores(const Platform &platform);

// The fix for fp32 GEMMs and convolutions: bf16 and TF32 from Ampere (8.0) on, fp16 with a
// GradScaler on Volta and Turing, bf16 on AMD; conditional when the GPU is unknown.
std::string precisionFix(const Platform &platform);

// Whether torch.optim has a class of this name ("Adam": yes; torchrec's "CombinedOptimizer": no).
bool isTorchOptimizer(std::string_view name);
// "Optimizer.step#Adam.step" -> "Adam"; "" when the name has no '#'.
std::string optimizerClass(std::string_view stepName);

// The fix for an optimizer that updates one tensor at a time, keeping its class
// ("Adam" from "Optimizer.step#Adam.step"): foreach from torch 1.12, fused Adam/AdamW on CUDA
// from 2.0, fused SGD on CUDA from 2.3 and fused on the CPU from 2.4, torch.compile from 2.0. A class torch.optim does
// not have is not named as one.
std::string optimizerFix(const Platform &platform, std::string_view stepName);

} // namespace pyrometer::analysis
