// What a GPU event does, from its kind and name.
//
// Memcpy and memset events are Memory whatever their name. Every other event is classified by
// its name as the trace writes it (the whole demangled signature, template and function
// arguments included, since they often say what a generic launcher runs: cuBLAS's
// `cublasLtEpilogue_t`, cuDNN's `cudnnConvolutionStruct`), lower-cased, by the first rule of
// this list that matches; a rule matches when the name contains one of its words.
//
//   Triton         starts with `triton_` (torch.compile's Inductor kernels: triton_poi_fused_*,
//                  triton_red_*, triton_per_*, triton_tem_*), whatever else the name holds.
//   Communication  isCommunicationKernelName (workclass.h): NCCL/RCCL, DeepEP's dispatch and
//                  combine, custom all-reduce, NVSHMEM, MSCCL++, kernels named for a collective.
//   Attention      flash, fmha, sdpa, mem_efficient, attention, attn.
//   Convolution    conv (not in `convert`), fprop, dgrad, wgrad (cuDNN/xmma/CUTLASS implicit-GEMM
//                  convolutions, so before GEMM), winograd, fft1d, fft2d (cuDNN's FFT convolution;
//                  cuFFT's own kernels fall to Other), im2col, col2im, scudnn, 884cudnn,
//                  1688cudnn, 16816cudnn (cuDNN's arch-prefixed kernels), cask_cudnn (its offset
//                  kernels), igemm (MIOpen's implicit GEMM).
//   GEMM           gemm (not in `fbgemm`, an embedding library), gemv, cutlass, cublas, xmma,
//                  wgmma, cijk_ (Tensile/rocBLAS), hipblaslt, rocblas, matmul, nvjet (cuBLAS 12.8's
//                  Hopper/Blackwell GEMMs), splitkreduce (cuBLAS's split-K step).
//   Normalization  layer_norm, layernorm, batch_norm, batchnorm, group_norm, groupnorm,
//                  instance_norm, instancenorm, rms_norm, rmsnorm, bn_fw, bn_bw, cudnn::bn,
//                  gammabeta, rowwisemoments (LayerNorm/GroupNorm's own kernels), softmax
//                  (a row normalized to sum 1: here, not under reduction).
//   Reduction      reduc, sum_, _sum, cumsum, mean, argmax, argmin, max_pool, maxpool, avg_pool,
//                  avgpool, average_pool (pooling reduces each window), devicescan (CUB scans).
//   Elementwise    elementwise, fill, copy (device copies, concatenation), dropout,
//                  multi_tensor_apply (foreach ops, fused optimizers), nchwtonhwc, nhwctonchw,
//                  transpose (layout changes), index_select, indexselect, scale, relu, gelu,
//                  silu, sigmoid, tanh.
//   Other          everything else (sorts, embedding bags, losses, ...).
//
// scripts/make-kerneltype-fixtures.py writes the same rules as regular expressions; the golden
// breakdowns it writes check that both agree on the real traces.
#include "core/analysis/kerneltypes.h"

#include "core/analysis/workclass.h"

#include <algorithm>
#include <cctype>

namespace pyrometer::analysis {

namespace {

// A word a rule looks for; an occurrence right after `notAfter` or right before `notBefore`
// does not count ("gemm" in "fbgemm", "conv" in "convert").
struct Word {
    std::string_view text;
    std::string_view notAfter = {};
    std::string_view notBefore = {};
};

struct Rule {
    KernelType type;
    std::vector<Word> words;
};

const std::vector<Rule> &rules()
{
    static const std::vector<Rule> list{
        {KernelType::Attention, {{"flash"}, {"fmha"}, {"sdpa"}, {"mem_efficient"}, {"attention"}, {"attn"}}},
        {KernelType::Convolution,
         {{"conv", {}, "ert"},
          {"fprop"},
          {"dgrad"},
          {"wgrad"},
          {"winograd"},
          {"fft1d"},
          {"fft2d"},
          {"im2col"},
          {"col2im"},
          {"scudnn"},
          {"884cudnn"},
          {"1688cudnn"},
          {"16816cudnn"},
          {"cask_cudnn"},
          {"igemm"}}},
        {KernelType::Gemm,
         {{"gemm", "fb"},
          {"gemv"},
          {"cutlass"},
          {"cublas"},
          {"xmma"},
          {"wgmma"},
          {"cijk_"},
          {"hipblaslt"},
          {"rocblas"},
          {"matmul"},
          {"nvjet"},
          {"splitkreduce"}}},
        {KernelType::Normalization,
         {{"layer_norm"},
          {"layernorm"},
          {"batch_norm"},
          {"batchnorm"},
          {"group_norm"},
          {"groupnorm"},
          {"instance_norm"},
          {"instancenorm"},
          {"rms_norm"},
          {"rmsnorm"},
          {"bn_fw"},
          {"bn_bw"},
          {"cudnn::bn"},
          {"gammabeta"},
          {"rowwisemoments"},
          {"softmax"}}},
        {KernelType::Reduction,
         {{"reduc"},
          {"sum_"},
          {"_sum"},
          {"cumsum"},
          {"mean"},
          {"argmax"},
          {"argmin"},
          {"max_pool"},
          {"maxpool"},
          {"avg_pool"},
          {"avgpool"},
          {"average_pool"},
          {"devicescan"}}},
        {KernelType::Elementwise,
         {{"elementwise"},
          {"fill"},
          {"copy"},
          {"dropout"},
          {"multi_tensor_apply"},
          {"nchwtonhwc"},
          {"nhwctonchw"},
          {"transpose"},
          {"index_select"},
          {"indexselect"},
          {"scale"},
          {"relu"},
          {"gelu"},
          {"silu"},
          {"sigmoid"},
          {"tanh"}}},
    };
    return list;
}

bool containsWord(std::string_view text, const Word &word)
{
    for (auto at = text.find(word.text); at != std::string_view::npos; at = text.find(word.text, at + 1)) {
        const bool excludedBefore = !word.notAfter.empty() && at >= word.notAfter.size() &&
                                    text.substr(at - word.notAfter.size(), word.notAfter.size()) == word.notAfter;
        const bool excludedAfter =
            !word.notBefore.empty() && text.substr(at + word.text.size(), word.notBefore.size()) == word.notBefore;
        if (!excludedBefore && !excludedAfter)
            return true;
    }
    return false;
}

} // namespace

std::string_view kernelTypeName(KernelType type)
{
    switch (type) {
    case KernelType::Communication: return "communication";
    case KernelType::Memory: return "memory";
    case KernelType::Gemm: return "gemm";
    case KernelType::Convolution: return "convolution";
    case KernelType::Attention: return "attention";
    case KernelType::Normalization: return "normalization";
    case KernelType::Reduction: return "reduction";
    case KernelType::Elementwise: return "elementwise";
    case KernelType::Triton: return "triton";
    case KernelType::Other: break;
    }
    return "other";
}

std::string_view kernelTypeLabel(KernelType type)
{
    switch (type) {
    case KernelType::Communication: return "Communication";
    case KernelType::Memory: return "Memory";
    case KernelType::Gemm: return "GEMM";
    case KernelType::Convolution: return "Convolution";
    case KernelType::Attention: return "Attention";
    case KernelType::Normalization: return "Normalization";
    case KernelType::Reduction: return "Reduction";
    case KernelType::Elementwise: return "Elementwise";
    case KernelType::Triton: return "Triton";
    case KernelType::Other: break;
    }
    return "Other";
}

KernelType classifyKernel(EventKind kind, std::string_view name)
{
    if (kind == EventKind::Memcpy || kind == EventKind::Memset)
        return KernelType::Memory;
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string_view text(lower);
    if (text.starts_with("triton_"))
        return KernelType::Triton;
    if (isCommunicationKernelName(text))
        return KernelType::Communication;
    for (const auto &rule : rules()) {
        if (std::any_of(rule.words.begin(), rule.words.end(), [&](const Word &w) { return containsWord(text, w); }))
            return rule.type;
    }
    return KernelType::Other;
}

namespace {

// keep(track, event): whether a device event that starts in range counts.
template <typename Keep>
KernelTypeBreakdown breakdownOf(const TraceIndex &index, const TimeRange &range, Keep keep, const StopToken *stop)
{
    const auto &trace = *index.trace;
    // Names repeat: each distinct (name, memory or not) is classified once.
    constexpr std::uint8_t kUnknown = 0xff;
    std::vector<std::uint8_t> typeOfName(trace.strings.size(), kUnknown);
    std::array<KernelTypeRow, kKernelTypeCount> rows{};
    KernelTypeBreakdown breakdown;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        if (stop && stop->stopRequested())
            return {};
        const auto &track = trace.tracks[t];
        const auto [first, last] = eventsIn(trace, trace::TrackId(t), range);
        for (auto i = first; i < last; ++i) {
            const auto kind = ti.kind[i];
            if (!isDeviceKind(kind) || !keep(trace::TrackId(t), i))
                continue;
            KernelType type = KernelType::Memory;
            if (kind == EventKind::Kernel) {
                const auto name = track.eventName[i];
                if (name.value >= typeOfName.size())
                    type = classifyKernel(kind, trace.string(name));
                else {
                    auto &cached = typeOfName[name.value];
                    if (cached == kUnknown)
                        cached = static_cast<std::uint8_t>(classifyKernel(kind, trace.string(name)));
                    type = static_cast<KernelType>(cached);
                }
            }
            auto &row = rows[static_cast<std::size_t>(type)];
            ++row.calls;
            row.totalNs += track.duration[i];
            breakdown.totalNs += track.duration[i];
        }
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
        auto row = rows[r];
        if (row.calls == 0)
            continue;
        row.type = static_cast<KernelType>(r);
        if (breakdown.totalNs > 0)
            row.percent = 100.0 * static_cast<double>(row.totalNs) / static_cast<double>(breakdown.totalNs);
        breakdown.rows.push_back(row);
    }
    // Stable: equal totals keep the enum's order.
    std::stable_sort(breakdown.rows.begin(), breakdown.rows.end(),
                     [](const KernelTypeRow &a, const KernelTypeRow &b) { return a.totalNs > b.totalNs; });
    return breakdown;
}

} // namespace

KernelTypeBreakdown buildKernelTypeBreakdown(const TraceIndex &index, const TimeRange &range, const StopToken *stop)
{
    return breakdownOf(index, range, [](trace::TrackId, std::uint32_t) { return true; }, stop);
}

KernelTypeBreakdown buildKernelTypeBreakdown(const TraceIndex &index, const StepSpans &steps, std::size_t step,
                                             const StopToken *stop)
{
    const auto wanted = static_cast<std::int32_t>(step);
    return breakdownOf(
        index, TimeRange::all(), [&](trace::TrackId t, std::uint32_t i) { return steps.of(t, i) == wanted; }, stop);
}

} // namespace pyrometer::analysis
