// Variant names: no libtorch here.
#include "core/model/variant.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>

namespace pyrometer::model {
namespace {

struct NamedKind {
    std::string_view name;
    VariantKind kind;
};

constexpr NamedKind kNames[] = {
    {"baseline", VariantKind::Baseline},
    {"frozen", VariantKind::Frozen},
    {"channels_last", VariantKind::ChannelsLast},
    {"channels-last", VariantKind::ChannelsLast},
    {"int8", VariantKind::Int8Dynamic},
    {"int8_dynamic", VariantKind::Int8Dynamic},
    {"int8_static", VariantKind::Int8Static},
    {"bf16", VariantKind::BFloat16},
    {"bfloat16", VariantKind::BFloat16},
    {"compile", VariantKind::Compile},
    {"fp16", VariantKind::Float16},
    {"float16", VariantKind::Float16},
    {"reduce_overhead", VariantKind::CudaGraphs},
    {"cuda_graphs", VariantKind::CudaGraphs},
};

constexpr std::string_view kEngines[] = {"qnnpack", "onednn", "fbgemm", "x86"};

// The pruning kinds, written NAME=FRACTION.
struct NamedAmount {
    std::string_view prefix;
    VariantKind kind;
    bool global;
};

constexpr NamedAmount kAmounts[] = {
    {"prune_l1=", VariantKind::PruneL1, false},
    {"prune_l1_global=", VariantKind::PruneL1, true},
    {"prune_channels=", VariantKind::PruneChannels, false},
};

std::string amountText(double amount)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", amount);
    return text;
}

// "0.5" as a fraction strictly between 0 and 1, or nothing.
std::optional<double> parseAmount(std::string_view text)
{
    double amount = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), amount);
    if (error != std::errc() || end != text.data() + text.size() || !(amount > 0 && amount < 1))
        return std::nullopt;
    return amount;
}

} // namespace

std::string variantName(const Variant &variant)
{
    switch (variant.kind) {
    case VariantKind::Baseline: return "baseline";
    case VariantKind::Frozen: return "frozen";
    case VariantKind::ChannelsLast: return "channels_last";
    case VariantKind::Int8Dynamic: return variant.engine.empty() ? "int8" : "int8@" + variant.engine;
    case VariantKind::Int8Static: return variant.engine.empty() ? "int8_static" : "int8_static@" + variant.engine;
    case VariantKind::BFloat16: return "bf16";
    case VariantKind::Threads: return "threads=" + std::to_string(variant.threads);
    case VariantKind::PruneL1: return (variant.global ? "prune_l1_global=" : "prune_l1=") + amountText(variant.amount);
    case VariantKind::PruneChannels: return "prune_channels=" + amountText(variant.amount);
    case VariantKind::Compile: return "compile";
    case VariantKind::Float16: return "fp16";
    case VariantKind::CudaGraphs: return "reduce_overhead";
    }
    return "baseline";
}

std::string knownVariantNames()
{
    return "baseline, frozen, channels_last, int8, int8_static, bf16, threads=N, prune_l1=F (per layer), "
           "prune_l1_global=F, "
           "prune_channels=F (F a fraction, 0.5); int8 and int8_static on a quantized engine as int8@ENGINE (qnnpack, "
           "onednn, "
           "fbgemm, x86); with the Python engine (--python) also compile, fp16 and reduce_overhead (CUDA graphs, on a "
           "GPU)";
}

Result<std::vector<Variant>> parseVariants(std::string_view text)
{
    std::vector<Variant> variants;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const auto part = trimBlanks(text.substr(0, comma));
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (part.empty())
            continue;
        Variant variant;
        const auto pruning = std::find_if(std::begin(kAmounts), std::end(kAmounts), [&](const auto &named) {
            return part.substr(0, named.prefix.size()) == named.prefix;
        });
        if (pruning != std::end(kAmounts)) {
            const auto amount = parseAmount(part.substr(pruning->prefix.size()));
            if (!amount)
                return Error{"variant \"" + std::string(part) +
                             "\": the fraction pruned must be a number between 0 and 1, such as 0.5"};
            variant.kind = pruning->kind;
            variant.amount = *amount;
            variant.global = pruning->global;
        } else if (part.substr(0, 8) == "threads=") {
            const auto digits = part.substr(8);
            int threads = 0;
            const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), threads);
            if (error != std::errc() || end != digits.data() + digits.size() || threads < 1 || threads > 4096)
                return Error{"variant \"" + std::string(part) + "\": the thread count must be a whole number from 1"};
            variant = Variant{VariantKind::Threads, threads, {}};
        } else {
            const auto at = part.find('@');
            const auto name = part.substr(0, at);
            const auto found = std::find_if(std::begin(kNames), std::end(kNames),
                                            [&](const auto &named) { return named.name == name; });
            if (found == std::end(kNames))
                return Error{"unknown variant \"" + std::string(part) + "\"; known: " + knownVariantNames()};
            variant.kind = found->kind;
            if (at != std::string_view::npos) {
                const auto engine = part.substr(at + 1);
                if (variant.kind != VariantKind::Int8Dynamic && variant.kind != VariantKind::Int8Static)
                    return Error{"variant \"" + std::string(part) +
                                 "\": only int8 and int8_static run on a quantized engine"};
                if (std::find(std::begin(kEngines), std::end(kEngines), engine) == std::end(kEngines))
                    return Error{"variant \"" + std::string(part) +
                                 "\": unknown quantized engine; known: qnnpack, onednn, fbgemm, x86"};
                variant.engine = std::string(engine);
            }
        }
        if (std::find(variants.begin(), variants.end(), variant) == variants.end())
            variants.push_back(variant);
    }
    if (variants.empty())
        return Error{"no variants given; known: " + knownVariantNames()};
    return variants;
}

std::optional<double> accuracyDrop(const VariantResult &row)
{
    if (row.accuracyChange)
        return -*row.accuracyChange;
    if (row.agreement && !row.accuracy)
        return (1.0 - *row.agreement) * 100.0;
    return std::nullopt;
}

std::optional<double> inferencesPerJoule(const std::optional<double> &energyMjPerInference)
{
    if (!energyMjPerInference || *energyMjPerInference <= 0)
        return std::nullopt;
    return 1000.0 / *energyMjPerInference;
}

} // namespace pyrometer::model
