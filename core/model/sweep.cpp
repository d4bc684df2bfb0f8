#include "core/model/sweep.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace pyrometer::model {

std::optional<std::int64_t> parseByteSize(std::string_view text)
{
    while (!text.empty() && text.back() == ' ')
        text.remove_suffix(1);
    std::size_t digits = 0;
    while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
        ++digits;
    if (digits == 0)
        return std::nullopt;
    double value = 0;
    try {
        value = std::stod(std::string(text.substr(0, digits)));
    } catch (const std::exception &) {
        return std::nullopt;
    }
    std::string unit;
    for (auto c : text.substr(digits))
        if (c != ' ')
            unit += char(std::tolower(static_cast<unsigned char>(c)));
    static const std::pair<const char *, double> kUnits[] = {{"", 1},
                                                             {"b", 1},
                                                             {"k", 1024.0},
                                                             {"kib", 1024.0},
                                                             {"kb", 1e3},
                                                             {"m", 1048576.0},
                                                             {"mib", 1048576.0},
                                                             {"mb", 1e6},
                                                             {"g", 1073741824.0},
                                                             {"gib", 1073741824.0},
                                                             {"gb", 1e9},
                                                             {"t", 1099511627776.0},
                                                             {"tib", 1099511627776.0},
                                                             {"tb", 1e12}};
    for (const auto &[name, scale] : kUnits)
        if (unit == name && value * scale >= 1 && value * scale < 9.2e18)
            return std::int64_t(std::llround(value * scale));
    return std::nullopt;
}

std::vector<bool> batchedInputs(const std::vector<InputSpec> &inputs)
{
    std::vector<bool> batched(inputs.size(), false);
    const bool marked =
        std::any_of(inputs.begin(), inputs.end(), [](const InputSpec &input) { return input.sweptBatch; });
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto &shape = inputs[i].shape;
        batched[i] =
            !shape.empty() && (marked ? inputs[i].sweptBatch
                                      : !inputs.front().shape.empty() && shape.front() == inputs.front().shape.front());
    }
    return batched;
}

std::vector<InputSpec> withBatch(const std::vector<InputSpec> &inputs, std::int64_t batch)
{
    auto result = inputs;
    const auto batched = batchedInputs(inputs);
    for (std::size_t i = 0; i < result.size(); ++i) {
        if (batched[i])
            result[i].shape.front() = batch;
        result[i].sweptBatch = false;
    }
    return result;
}

} // namespace pyrometer::model
