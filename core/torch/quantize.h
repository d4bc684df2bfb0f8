#pragma once
// Internal to core/torch's .cpp files: int8 quantization of TorchScript modules with libtorch's
// own passes and quantized ops. Includes libtorch. Never include from a public header.

#include "core/util/result.h"

#include <torch/script.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::torch {

// Selects the engine quantized ops run on, for the process (libtorch's setting), and returns
// it: the one named ("qnnpack", "onednn", "fbgemm", "x86") when libtorch supports it; unnamed,
// the one libtorch had selected when the process started, else the first it supports of x86,
// fbgemm, onednn, qnnpack. An Error says why none. Packed weights are packed for the engine
// selected when they are made or loaded.
Result<at::QEngine> selectQEngine(std::string_view name = {});

// The quantized engines this libtorch supports, as variant names spell them: "qnnpack, onednn".
std::string quantizedEngineNames();

// Dynamic int8 of a frozen module, in place: every aten::linear with a constant weight as
// quantized::linear_dynamic, every aten::lstm and aten::gru as aten::quantized_lstm and
// aten::quantized_gru on int8 cell parameters. Returns what it did ("1 linear layer, 1 LSTM
// and 1 GRU int8 (ONEDNN)"), or why nothing could be quantized.
Result<std::string> quantizeDynamic(::torch::jit::Module &frozen, at::QEngine engine);

// The static int8 module of an eval-mode module and what it did: conv-bn folded, min/max
// observers on activations and weights (per channel where the engine takes it) fed with the
// calibration batches, then quantize-dequantize inserted and fused into quantized::conv2d,
// quantized::linear and their relu forms, and frozen (libtorch's graph-mode passes). Throws
// what libtorch throws.
struct StaticQuantized {
    ::torch::jit::Module module;
    std::string note;
};
StaticQuantized quantizeStatic(const ::torch::jit::Module &module, at::QEngine engine,
                               const std::vector<std::vector<c10::IValue>> &calibration);

} // namespace pyrometer::torch
