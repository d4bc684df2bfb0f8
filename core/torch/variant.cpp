// Variant names: no libtorch here.
#include "core/torch/variant.h"

#include <algorithm>
#include <charconv>

namespace pyrometer::torch {
namespace {

struct NamedKind {
    std::string_view name;
    VariantKind kind;
};

constexpr NamedKind kNames[] = {
    {"baseline", VariantKind::Baseline},        {"frozen", VariantKind::Frozen},
    {"channels_last", VariantKind::ChannelsLast}, {"channels-last", VariantKind::ChannelsLast},
    {"int8", VariantKind::Int8Dynamic},         {"int8_dynamic", VariantKind::Int8Dynamic},
    {"int8_static", VariantKind::Int8Static},   {"bf16", VariantKind::BFloat16},
    {"bfloat16", VariantKind::BFloat16},
};

constexpr std::string_view kEngines[] = {"qnnpack", "onednn", "fbgemm", "x86"};

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
    }
    return "baseline";
}

std::string knownVariantNames()
{
    return "baseline, frozen, channels_last, int8, int8_static, bf16, threads=N; int8 and int8_static on a quantized "
           "engine as int8@ENGINE (qnnpack, onednn, fbgemm, x86)";
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
        if (part.substr(0, 8) == "threads=") {
            const auto digits = part.substr(8);
            int threads = 0;
            const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), threads);
            if (error != std::errc() || end != digits.data() + digits.size() || threads < 1 || threads > 4096)
                return Error{"variant \"" + std::string(part) + "\": the thread count must be a whole number from 1"};
            variant = Variant{VariantKind::Threads, threads, {}};
        } else {
            const auto at = part.find('@');
            const auto name = part.substr(0, at);
            const auto found = std::find_if(std::begin(kNames), std::end(kNames), [&](const auto &named) { return named.name == name; });
            if (found == std::end(kNames))
                return Error{"unknown variant \"" + std::string(part) + "\"; known: " + knownVariantNames()};
            variant.kind = found->kind;
            if (at != std::string_view::npos) {
                const auto engine = part.substr(at + 1);
                if (variant.kind != VariantKind::Int8Dynamic && variant.kind != VariantKind::Int8Static)
                    return Error{"variant \"" + std::string(part) + "\": only int8 and int8_static run on a quantized engine"};
                if (std::find(std::begin(kEngines), std::end(kEngines), engine) == std::end(kEngines))
                    return Error{"variant \"" + std::string(part) + "\": unknown quantized engine; known: qnnpack, onednn, fbgemm, x86"};
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

} // namespace pyrometer::torch
