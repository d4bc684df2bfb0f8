#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::torch {

enum class DType { Float32, Float64, Float16, BFloat16, Int64, Int32, Int16, Int8, UInt8, Bool };

// One input tensor a model is fed: its shape and element type. The data is random with a
// fixed seed (normal for floating types, 0 or 1 for integers and bools, valid as indices).
struct InputSpec {
    std::vector<std::int64_t> shape;
    DType dtype = DType::Float32;
    bool operator==(const InputSpec &) const = default;
};

// Parses "1x3x224x224" or several inputs "1x3x224x224,1x10:int64". Dtype names: float32
// (float), float64 (double), float16 (half), bfloat16, int64 (long), int32 (int), int16,
// int8, uint8, bool. An empty shape "" is not allowed; a scalar is written "scalar".
Result<std::vector<InputSpec>> parseInputSpecs(std::string_view text);

// The inverse of parseInputSpecs: "1x3x224x224,1x10:int64" (float32 is left implicit).
std::string formatInputSpecs(const std::vector<InputSpec> &inputs);

std::string dtypeName(DType dtype);

// text without leading and trailing spaces and tabs: one item of a comma-separated list.
std::string_view trimBlanks(std::string_view text);

// The number of items a run processes: the first dimension of the first input (1 for none).
std::int64_t batchSizeOf(const std::vector<InputSpec> &inputs);

} // namespace pyrometer::torch
