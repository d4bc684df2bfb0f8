#include "core/model/inputspec.h"

#include <array>
#include <charconv>
#include <utility>

namespace pyrometer::model {
namespace {

struct DTypeName {
    std::string_view name;
    DType dtype;
};

constexpr std::array<DTypeName, 16> kDTypeNames{{
    {"float32", DType::Float32},
    {"float", DType::Float32},
    {"float64", DType::Float64},
    {"double", DType::Float64},
    {"float16", DType::Float16},
    {"half", DType::Float16},
    {"bfloat16", DType::BFloat16},
    {"int64", DType::Int64},
    {"long", DType::Int64},
    {"int32", DType::Int32},
    {"int", DType::Int32},
    {"int16", DType::Int16},
    {"int8", DType::Int8},
    {"uint8", DType::UInt8},
    {"bool", DType::Bool},
    {"f32", DType::Float32},
}};

Result<InputSpec> parseOne(std::string_view part, std::size_t index, BatchDim batch)
{
    const auto where = "input " + std::to_string(index + 1) + " \"" + std::string(part) + "\"";
    InputSpec spec;
    auto shape = part;
    if (const auto colon = part.find(':'); colon != std::string_view::npos) {
        shape = trimBlanks(part.substr(0, colon));
        const auto name = trimBlanks(part.substr(colon + 1));
        bool found = false;
        for (const auto &entry : kDTypeNames) {
            if (entry.name == name) {
                spec.dtype = entry.dtype;
                found = true;
            }
        }
        if (!found)
            return Error{where + ": unknown dtype \"" + std::string(name) +
                         "\" (expected float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8 or bool)"};
    }
    if (shape.empty())
        return Error{where + ": empty shape (expected dimensions like 1x3x224x224)"};
    if (shape == "scalar")
        return spec;
    while (true) {
        const auto x = shape.find_first_of("xX*");
        const auto dim = trimBlanks(shape.substr(0, x));
        if (dim == "B" || dim == "b") {
            if (batch == BatchDim::Fixed)
                return Error{where + ": \"" + std::string(dim) +
                             "\" stands for the batch size a sweep varies; give a number here, such as 1x3x224x224"};
            if (!spec.shape.empty())
                return Error{where + ": only the first dimension can be the swept batch \"" + std::string(dim) + "\""};
            spec.sweptBatch = true;
            spec.shape.push_back(1);
        } else {
            std::int64_t value = 0;
            const auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), value);
            if (dim.empty() || ec != std::errc() || end != dim.data() + dim.size())
                return Error{where + ": \"" + std::string(dim) +
                             "\" is not a dimension (expected dimensions like 1x3x224x224" +
                             (batch == BatchDim::Swept ? " or Bx3x224x224)" : ")")};
            if (value <= 0)
                return Error{where + ": dimension " + std::string(dim) + " must be positive"};
            spec.shape.push_back(value);
        }
        if (x == std::string_view::npos)
            break;
        shape = shape.substr(x + 1);
    }
    return spec;
}

} // namespace

Result<std::vector<InputSpec>> parseInputSpecs(std::string_view text, BatchDim batch)
{
    text = trimBlanks(text);
    if (text.empty())
        return Error{"empty input spec (expected shapes like 1x3x224x224 or 1x3x224x224,1x10:int64)"};
    std::vector<InputSpec> inputs;
    while (true) {
        const auto comma = text.find(',');
        auto parsed = parseOne(trimBlanks(text.substr(0, comma)), inputs.size(), batch);
        if (!parsed.ok())
            return parsed.error();
        inputs.push_back(std::move(parsed).value());
        if (comma == std::string_view::npos)
            break;
        text = text.substr(comma + 1);
    }
    return inputs;
}

std::string dtypeName(DType dtype)
{
    for (const auto &entry : kDTypeNames)
        if (entry.dtype == dtype)
            return std::string(entry.name);
    return "float32";
}

std::string_view trimBlanks(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

std::string formatInputSpecs(const std::vector<InputSpec> &inputs)
{
    std::string text;
    for (const auto &input : inputs) {
        if (!text.empty())
            text += ',';
        if (input.shape.empty())
            text += "scalar";
        for (std::size_t i = 0; i < input.shape.size(); ++i)
            text += (i ? "x" : "") + (i == 0 && input.sweptBatch ? std::string("B") : std::to_string(input.shape[i]));
        if (input.dtype != DType::Float32)
            text += ":" + dtypeName(input.dtype);
    }
    return text;
}

std::int64_t batchSizeOf(const std::vector<InputSpec> &inputs)
{
    if (inputs.empty() || inputs.front().shape.empty())
        return 1;
    return inputs.front().shape.front();
}

} // namespace pyrometer::model
