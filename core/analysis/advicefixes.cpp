#include "core/analysis/advicefixes.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

namespace pyrometer::analysis {
namespace {

bool mentions(std::string text, std::initializer_list<std::string_view> parts)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return std::any_of(parts.begin(), parts.end(),
                       [&](std::string_view part) { return text.find(part) != std::string::npos; });
}

std::string versionText(int major, int minor)
{
    return std::to_string(major) + "." + std::to_string(minor);
}

// The torch from which `class(fused=True)` exists on this device, if it ever does.
std::optional<std::pair<int, int>> fusedSince(std::string_view optimizer, Platform::Device device)
{
    const bool adam = optimizer == "Adam" || optimizer == "AdamW";
    if (!adam && optimizer != "SGD")
        return std::nullopt;
    if (device == Platform::Device::Cpu)
        return std::pair{2, 4};
    return adam ? std::pair{2, 0} : std::pair{2, 3};
}

} // namespace

bool isTorchOptimizer(std::string_view name)
{
    static constexpr std::string_view classes[] = {"SGD",    "Adam",  "AdamW",      "Adagrad",   "Adadelta",
                                                   "Adamax", "ASGD",  "NAdam",      "RAdam",     "RMSprop",
                                                   "Rprop",  "LBFGS", "SparseAdam", "Adafactor", "Muon"};
    return std::find(std::begin(classes), std::end(classes), name) != std::end(classes);
}

std::string optimizerClass(std::string_view stepName)
{
    if (const auto hash = stepName.find('#'); hash != std::string_view::npos) {
        const auto rest = stepName.substr(hash + 1);
        return std::string(rest.substr(0, rest.find('.')));
    }
    return {};
}

Platform platformOf(const trace::TraceInfo &info, bool hasDevice)
{
    Platform platform;
    if (!hasDevice) {
        platform.device = Platform::Device::Cpu;
    } else if (!info.devices.empty()) {
        // The oldest GPU of the run decides what all of its ranks' code may use.
        const auto oldest = std::min_element(info.devices.begin(), info.devices.end(), [](const auto &a, const auto &b) {
            return std::pair(a.computeMajor, a.computeMinor) < std::pair(b.computeMajor, b.computeMinor);
        });
        platform.deviceName = oldest->name;
        platform.device = mentions(oldest->name, {"amd", "radeon", "instinct"}) ? Platform::Device::AmdGpu
                                                                                 : Platform::Device::NvidiaGpu;
        if (platform.device == Platform::Device::NvidiaGpu) {
            platform.computeMajor = oldest->computeMajor;
            platform.computeMinor = oldest->computeMinor;
        }
    }
    int major = -1, minor = -1;
    if (std::sscanf(info.torchVersion.c_str(), "%d.%d", &major, &minor) == 2 && major >= 0 && minor >= 0) {
        platform.torchMajor = major;
        platform.torchMinor = minor;
    }
    return platform;
}

bool hasTensorCores(const Platform &platform)
{
    if (platform.device == Platform::Device::Cpu)
        return false;
    return platform.device != Platform::Device::NvidiaGpu || platform.computeMajor < 0 || platform.computeMajor >= 7;
}

std::string precisionFix(const Platform &platform)
{
    constexpr std::string_view fp16 =
        "torch.autocast(device_type=\"cuda\", dtype=torch.float16) with a GradScaler (torch.cuda.amp.GradScaler)";
    const std::string tf32 = platform.torchKnown() && !platform.torchAtLeast(1, 12)
                                 ? "torch.backends.cuda.matmul.allow_tf32 = True"
                                 : "torch.set_float32_matmul_precision(\"high\")";
    switch (platform.device) {
    case Platform::Device::Cpu:
        return "If the CPU has AMX or avx512_bf16: torch.autocast(device_type=\"cpu\", dtype=torch.bfloat16); "
               "without them bf16 is emulated and no faster.";
    case Platform::Device::AmdGpu:
        return "Use mixed precision: torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16), which ROCm runs on "
               "the GPU's matrix cores (or float16 with a GradScaler).";
    case Platform::Device::UnknownGpu:
        return "Use mixed precision: " + std::string(fp16) +
               "; on an Ampere or newer GPU (compute capability 8.0+) dtype=torch.bfloat16 needs no scaler, and TF32 (" +
               tf32 + ") speeds up what stays in fp32.";
    case Platform::Device::NvidiaGpu:
        break;
    }
    if (platform.computeMajor >= 8 || platform.computeMajor < 0)
        return "Use mixed precision: torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16) (or float16 with a "
               "GradScaler), or at least allow TF32: " +
               tf32 + ".";
    return "Use mixed precision: " + std::string(fp16) + ", which runs on the fp16 tensor cores of the " +
           platform.deviceName + " (compute capability " + versionText(platform.computeMajor, platform.computeMinor) +
           "; bf16 and TF32 need 8.0, Ampere).";
}

std::string optimizerFix(const Platform &platform, std::string_view stepName)
{
    // "Optimizer.step#Adam.step" -> "Adam"
    std::string optimizer = optimizerClass(stepName);
    if (optimizer.empty())
        optimizer = "Optimizer";
    if (!isTorchOptimizer(optimizer))
        return optimizer + " is not one of torch.optim's classes: give the optimizers it wraps foreach=True (or "
                           "fused=True where they offer it), or compile the optimizer step with torch.compile.";
    const std::string call = "torch.optim." + optimizer + "(params, ";
    const auto fused = fusedSince(optimizer, platform.device);
    const std::string onWhat = platform.device == Platform::Device::Cpu ? " for a CPU run" : "";
    if (!platform.torchKnown()) {
        std::string text = "Use the foreach implementation: " + call + "foreach=True) (torch >= 1.12)";
        if (fused)
            text += "; on torch >= " + versionText(fused->first, fused->second) + onWhat + " " + call +
                    "fused=True) is faster still";
        return text + ", or compile the optimizer step with torch.compile (torch >= 2.0).";
    }
    const std::string torch = "torch " + versionText(platform.torchMajor, platform.torchMinor);
    if (!platform.torchAtLeast(1, 12))
        return torch + " has no foreach or fused optimizers: from torch 1.12 on, " + call +
               "foreach=True) updates all parameters at once.";
    std::string text = fused && platform.torchAtLeast(fused->first, fused->second)
                           ? "Use the fused or foreach implementation: " + call + "fused=True) (or foreach=True)"
                           : "Use the foreach implementation: " + call + "foreach=True)";
    if (platform.torchAtLeast(2, 0))
        text += ", or compile the optimizer step with torch.compile";
    return text + ".";
}

} // namespace pyrometer::analysis
