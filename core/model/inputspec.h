#pragma once

#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::model {

enum class DType { Float32, Float64, Float16, BFloat16, Int64, Int32, Int16, Int8, UInt8, Bool };

// One input tensor a model is fed: its shape and element type. The data is random with a
// fixed seed (normal for floating types, 0 or 1 for integers and bools, valid as indices).
struct InputSpec {
    std::vector<std::int64_t> shape;
    DType dtype = DType::Float32;
    // The first dimension was written "B": it is the batch a sweep varies (shape holds 1 there
    // until withBatch gives it a size).
    bool sweptBatch = false;
    bool operator==(const InputSpec &) const = default;
};

// Whether a shape may name its first dimension "B", the batch size a sweep varies.
enum class BatchDim { Fixed, Swept };

// Parses "1x3x224x224" or several inputs "1x3x224x224,1x10:int64". Dtype names: float32
// (float), float64 (double), float16 (half), bfloat16, int64 (long), int32 (int), int16,
// int8, uint8, bool. An empty shape "" is not allowed; a scalar is written "scalar". With
// BatchDim::Swept an input's first dimension may be "B" ("Bx3x224x224"); with Fixed, "B" is
// refused with a message saying that only a sweep varies the batch.
Result<std::vector<InputSpec>> parseInputSpecs(std::string_view text, BatchDim batch = BatchDim::Fixed);

// The inverse of parseInputSpecs: "1x3x224x224,1x10:int64" (float32 is left implicit, a swept
// batch is written "B").
std::string formatInputSpecs(const std::vector<InputSpec> &inputs);

std::string dtypeName(DType dtype);

// text without leading and trailing spaces and tabs: one item of a comma-separated list.
std::string_view trimBlanks(std::string_view text);

// The number of items a run processes: the first dimension of the first input (1 for none).
std::int64_t batchSizeOf(const std::vector<InputSpec> &inputs);

} // namespace pyrometer::model
