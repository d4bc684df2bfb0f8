// The roofs of the devices Pyrometer knows by name, from their vendors' documents.
//
// Figures are dense (NVIDIA's "with sparsity" figures halved), at boost clock, per torch device.
// For NVIDIA parts matrix FP32 is the plain FP32 figure, since FP32 GEMMs run on the CUDA cores
// (torch leaves TF32 off for matmuls), and matrix FP64 is the FP64 tensor core figure where the
// part has one. docs/roofline-devices.md shows the same table.
#include "core/analysis/deviceroof.h"

#include <algorithm>
#include <cctype>

namespace pyrometer::analysis {

namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;

// Matrix peaks in TFLOPS (TOPS for INT8), in Precision order; 0 where the part has no such units.
struct Tflops {
    double fp64 = 0;
    double fp32 = 0;
    double tf32 = 0;
    double bf16 = 0;
    double fp16 = 0;
    double fp8 = 0;
    double int8 = 0;
};

DeviceRoof roof(std::string name, double gigabytesPerSecond, double vectorTflops, Tflops matrix, std::string source,
                bool nvidia)
{
    DeviceRoof r;
    r.name = std::move(name);
    r.bandwidth = gigabytesPerSecond * kGiga;
    r.vectorFlops = vectorTflops * kTera;
    r.matrixFlops = {matrix.fp64 * kTera, matrix.fp32 * kTera, matrix.tf32 * kTera, matrix.bf16 * kTera,
                     matrix.fp16 * kTera, matrix.fp8 * kTera,  matrix.int8 * kTera};
    r.source = std::move(source);
    r.nvidia = nvidia;
    return r;
}

DeviceRoof nvidia(std::string name, double gigabytesPerSecond, Tflops matrix, std::string source)
{
    // The FP32 figure is the CUDA cores' own, so it is the vector roof as well.
    return roof(std::move(name), gigabytesPerSecond, matrix.fp32, matrix, std::move(source), true);
}

DeviceRoof amd(std::string name, double gigabytesPerSecond, double vectorTflops, Tflops matrix, std::string source)
{
    return roof(std::move(name), gigabytesPerSecond, vectorTflops, matrix, std::move(source), false);
}

// One way of writing a device's name. Words are compared whole: the characters either side of
// an occurrence must not be letters or digits, so "a10" is not found in "a100" or "a10g", nor
// "h200" in "gh200", nor "l4" in "l40s".
struct Spelling {
    std::vector<std::string_view> all;       // every one must occur
    std::vector<std::string_view> none = {}; // none may occur
};

struct MatchRule {
    std::string_view device; // a name of deviceTable()
    std::vector<Spelling> spellings;
};

// Tried in this order, first match wins: the specific variants come before the family name.
const std::vector<MatchRule> &matchRules()
{
    static const std::vector<MatchRule> rules{
        {"NVIDIA Tesla V100 PCIe", {{{"v100", "pcie"}}}},
        // DGXS (DGX Station) and SXM3 (DGX-2) boards have the SXM2 figures; the FHHL card is slower.
        {"NVIDIA Tesla V100 SXM2", {{{"v100"}, {"fhhl"}}}},
        {"NVIDIA Tesla T4", {{{"t4"}}}},
        {"NVIDIA A100 PCIe 80GB", {{{"a100", "80gb", "pcie"}}}},
        {"NVIDIA A100 SXM4 80GB", {{{"a100", "80gb"}}}},
        {"NVIDIA A100 PCIe 40GB", {{{"a100", "pcie"}}}},
        // Also Meta's "A100-PG509-200" boards, the SXM4 40GB part under its board name.
        {"NVIDIA A100 SXM4 40GB", {{{"a100"}}}},
        // Whole-word "a10" leaves out the AWS A10G, whose tensor cores are slower.
        {"NVIDIA A10", {{{"a10"}}}},
        {"NVIDIA L40S", {{{"l40s"}}}},
        {"NVIDIA L4", {{{"l4"}}}},
        // The Ti has more SMs and faster memory.
        {"NVIDIA GeForce RTX 3090", {{{"3090"}, {"ti"}}}},
        // The 4090 D (fewer SMs) and the laptop part (another chip) differ.
        {"NVIDIA GeForce RTX 4090", {{{"4090"}, {"d", "laptop", "mobile"}}}},
        {"NVIDIA H100 NVL", {{{"h100", "nvl"}}}},
        // The PCIe card uses HBM2e; the SXM5 part ("NVIDIA H100 80GB HBM3") HBM3.
        {"NVIDIA H100 PCIe", {{{"h100", "pcie"}}, {{"h100", "hbm2e"}}}},
        {"NVIDIA H100 SXM5 80GB", {{{"h100"}}}},
        // Whole-word "h200" leaves out the GH200, whose memory differs; the H200 NVL card has
        // lower clocks than the SXM part.
        {"NVIDIA H200 SXM 141GB", {{{"h200"}, {"nvl"}}}},
        // Whole-word "b200" leaves out the GB200, which runs at a higher power limit.
        {"NVIDIA B200", {{{"b200"}}}},
        // ROCm names both MI250 parts "AMD Instinct MI250X / MI250", so "mi250x" is tried first.
        {"AMD Instinct MI250X (per GCD)", {{{"mi250x"}}}},
        {"AMD Instinct MI250 (per GCD)", {{{"mi250"}}}},
        {"AMD Instinct MI325X", {{{"mi325x"}}, {{"mi325"}}}},
        // Whole-word "mi300x" leaves out the MI300A APU.
        {"AMD Instinct MI300X", {{{"mi300x"}}}},
    };
    return rules;
}

bool isWordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

bool containsWord(std::string_view text, std::string_view word)
{
    for (auto at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
        const auto end = at + word.size();
        const bool startsWord = at == 0 || !isWordChar(text[at - 1]);
        const bool endsWord = end == text.size() || !isWordChar(text[end]);
        if (startsWord && endsWord)
            return true;
    }
    return false;
}

bool matches(std::string_view lowered, const Spelling &spelling)
{
    const auto found = [lowered](std::string_view word) { return containsWord(lowered, word); };
    return std::ranges::all_of(spelling.all, found) && std::ranges::none_of(spelling.none, found);
}

} // namespace

std::string_view precisionName(Precision precision)
{
    switch (precision) {
    case Precision::FP64: return "FP64";
    case Precision::FP32: return "FP32";
    case Precision::TF32: return "TF32";
    case Precision::BF16: return "BF16";
    case Precision::FP16: return "FP16";
    case Precision::FP8: return "FP8";
    case Precision::INT8: break;
    }
    return "INT8";
}

const std::vector<DeviceRoof> &deviceTable()
{
    static const std::vector<DeviceRoof> table{
        nvidia("NVIDIA Tesla V100 SXM2", 900, {.fp64 = 7.8, .fp32 = 15.7, .fp16 = 125},
               "NVIDIA Tesla V100 datasheet (2020), SXM2"),
        nvidia("NVIDIA Tesla V100 PCIe", 900, {.fp64 = 7, .fp32 = 14, .fp16 = 112},
               "NVIDIA Tesla V100 datasheet (2020), PCIe"),
        nvidia("NVIDIA Tesla T4", 320, {.fp32 = 8.1, .fp16 = 65, .int8 = 130}, "NVIDIA T4 datasheet"),
        nvidia("NVIDIA A100 SXM4 40GB", 1555,
               {.fp64 = 19.5, .fp32 = 19.5, .tf32 = 156, .bf16 = 312, .fp16 = 312, .int8 = 624},
               "NVIDIA A100 datasheet, SXM 40GB"),
        nvidia("NVIDIA A100 SXM4 80GB", 2039,
               {.fp64 = 19.5, .fp32 = 19.5, .tf32 = 156, .bf16 = 312, .fp16 = 312, .int8 = 624},
               "NVIDIA A100 datasheet, SXM 80GB"),
        nvidia("NVIDIA A100 PCIe 80GB", 1935,
               {.fp64 = 19.5, .fp32 = 19.5, .tf32 = 156, .bf16 = 312, .fp16 = 312, .int8 = 624},
               "NVIDIA A100 datasheet, PCIe 80GB"),
        nvidia("NVIDIA A100 PCIe 40GB", 1555,
               {.fp64 = 19.5, .fp32 = 19.5, .tf32 = 156, .bf16 = 312, .fp16 = 312, .int8 = 624},
               "NVIDIA A100 datasheet, PCIe 40GB"),
        nvidia("NVIDIA A10", 600, {.fp32 = 31.2, .tf32 = 62.5, .bf16 = 125, .fp16 = 125, .int8 = 250},
               "NVIDIA A10 datasheet"),
        nvidia("NVIDIA L4", 300, {.fp32 = 30.3, .tf32 = 60, .bf16 = 121, .fp16 = 121, .fp8 = 242.5, .int8 = 242.5},
               "NVIDIA L4 datasheet; sparsity figures halved"),
        nvidia("NVIDIA L40S", 864, {.fp32 = 91.6, .tf32 = 183, .bf16 = 362, .fp16 = 362, .fp8 = 733, .int8 = 733},
               "NVIDIA L40S datasheet; sparsity figures halved"),
        nvidia("NVIDIA GeForce RTX 3090", 936, {.fp32 = 35.6, .tf32 = 35.6, .bf16 = 71, .fp16 = 71, .int8 = 284},
               "NVIDIA Ampere GA102 GPU architecture whitepaper; FP16/BF16 with FP32 accumulate"),
        nvidia("NVIDIA GeForce RTX 4090", 1008,
               {.fp32 = 82.6, .tf32 = 82.6, .bf16 = 165.2, .fp16 = 165.2, .fp8 = 330.3, .int8 = 660.6},
               "NVIDIA Ada Lovelace GPU architecture whitepaper; FP16/BF16/FP8 with FP32 accumulate"),
        nvidia("NVIDIA H100 SXM5 80GB", 3350,
               {.fp64 = 67, .fp32 = 67, .tf32 = 494.7, .bf16 = 989.4, .fp16 = 989.4, .fp8 = 1978.9, .int8 = 1978.9},
               "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM; sparsity figures halved"),
        nvidia("NVIDIA H100 PCIe", 2000,
               {.fp64 = 51, .fp32 = 51, .tf32 = 378, .bf16 = 756, .fp16 = 756, .fp8 = 1513, .int8 = 1513},
               "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe; sparsity figures halved"),
        nvidia("NVIDIA H100 NVL", 3900,
               {.fp64 = 60, .fp32 = 60, .tf32 = 417.5, .bf16 = 835.5, .fp16 = 835.5, .fp8 = 1670.5, .int8 = 1670.5},
               "NVIDIA H100 Tensor Core GPU datasheet, H100 NVL; sparsity figures halved"),
        nvidia("NVIDIA H200 SXM 141GB", 4800,
               {.fp64 = 67, .fp32 = 67, .tf32 = 494.7, .bf16 = 989.4, .fp16 = 989.4, .fp8 = 1978.9, .int8 = 1978.9},
               "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM; sparsity figures halved"),
        nvidia("NVIDIA B200", 8000,
               {.fp64 = 37, .fp32 = 75, .tf32 = 1100, .bf16 = 2250, .fp16 = 2250, .fp8 = 4500, .int8 = 4500},
               "NVIDIA HGX B200 datasheet, per GPU; sparsity figures halved"),
        // torch sees each of the package's two GCDs as a device: half the package's figures.
        amd("AMD Instinct MI250X (per GCD)", 1638.4, 23.95,
            {.fp64 = 47.85, .fp32 = 47.85, .bf16 = 191.5, .fp16 = 191.5, .int8 = 191.5},
            "AMD Instinct MI250X datasheet; one GCD, half the package's figures"),
        amd("AMD Instinct MI250 (per GCD)", 1638.4, 22.65,
            {.fp64 = 45.25, .fp32 = 45.25, .bf16 = 181.05, .fp16 = 181.05, .int8 = 181.05},
            "AMD Instinct MI250 datasheet; one GCD, half the package's figures"),
        amd("AMD Instinct MI300X", 5300, 163.4,
            {.fp64 = 163.4, .fp32 = 163.4, .tf32 = 653.7, .bf16 = 1307.4, .fp16 = 1307.4, .fp8 = 2614.9, .int8 = 2614.9},
            "AMD Instinct MI300X datasheet"),
        amd("AMD Instinct MI325X", 6000, 163.4,
            {.fp64 = 163.4, .fp32 = 163.4, .tf32 = 653.7, .bf16 = 1307.4, .fp16 = 1307.4, .fp8 = 2614.9, .int8 = 2614.9},
            "AMD Instinct MI325X datasheet"),
    };
    return table;
}

std::optional<DeviceRoof> findDevice(std::string_view name)
{
    std::string lowered(name);
    std::ranges::transform(lowered, lowered.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto &rule : matchRules()) {
        const auto spelled = [&lowered](const Spelling &s) { return matches(lowered, s); };
        if (!std::ranges::any_of(rule.spellings, spelled))
            continue;
        const auto &table = deviceTable();
        const auto entry = std::ranges::find(table, rule.device, &DeviceRoof::name);
        if (entry != table.end())
            return *entry;
    }
    return std::nullopt;
}

DeviceRoof customDevice(std::string name, double peakFlops, double bandwidth)
{
    DeviceRoof device;
    device.name = std::move(name);
    device.bandwidth = bandwidth;
    device.vectorFlops = peakFlops;
    device.matrixFlops.fill(peakFlops);
    device.source = "given by the user";
    return device;
}

} // namespace pyrometer::analysis
