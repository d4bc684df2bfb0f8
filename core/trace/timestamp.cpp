#include "core/trace/timestamp.h"

#include <limits>

namespace pyrometer::trace {
namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

std::string_view trimRight(std::string_view text)
{
    while (!text.empty()) {
        const char c = text.back();
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            break;
        text.remove_suffix(1);
    }
    return text;
}

} // namespace

std::optional<std::int64_t> parseIntegerSlow(std::string_view literal)
{
    literal = trimRight(literal);
    std::size_t i = 0;
    const bool negative = i < literal.size() && literal[i] == '-';
    if (negative)
        ++i;
    if (i == literal.size())
        return std::nullopt;
    std::uint64_t value = 0;
    for (; i < literal.size(); ++i) {
        if (!isDigit(literal[i]))
            return std::nullopt;
        const auto digit = static_cast<std::uint64_t>(literal[i] - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
            return std::nullopt;
        value = value * 10 + digit;
    }
    const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (value > limit + (negative ? 1 : 0))
        return std::nullopt;
    if (negative)
        return value == limit + 1 ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(value);
    return static_cast<std::int64_t>(value);
}

std::optional<std::int64_t> microsToNanosSlow(std::string_view literal)
{
    literal = trimRight(literal);
    std::size_t i = 0;
    const bool negative = i < literal.size() && literal[i] == '-';
    if (negative)
        ++i;
    // JSON grammar: int part is "0" or [1-9][0-9]*, then optional fraction and exponent.
    const std::size_t intBegin = i;
    while (i < literal.size() && isDigit(literal[i]))
        ++i;
    const std::size_t intEnd = i;
    if (intEnd == intBegin || (literal[intBegin] == '0' && intEnd - intBegin > 1))
        return std::nullopt;
    std::size_t fracBegin = i;
    std::size_t fracEnd = i;
    if (i < literal.size() && literal[i] == '.') {
        fracBegin = ++i;
        while (i < literal.size() && isDigit(literal[i]))
            ++i;
        fracEnd = i;
        if (fracEnd == fracBegin)
            return std::nullopt;
    }
    long long exponent = 0;
    if (i < literal.size() && (literal[i] == 'e' || literal[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < literal.size() && (literal[i] == '+' || literal[i] == '-'))
            expNegative = literal[i++] == '-';
        const std::size_t expBegin = i;
        while (i < literal.size() && isDigit(literal[i])) {
            if (exponent < 100000)
                exponent = exponent * 10 + (literal[i] - '0');
            ++i;
        }
        if (i == expBegin)
            return std::nullopt;
        if (expNegative)
            exponent = -exponent;
    }
    if (i != literal.size())
        return std::nullopt;

    // The value is digits(int ++ frac) * 10^(exponent - fracLen) µs, i.e. * 10^(exponent -
    // fracLen + 3) ns. Walk the digit string and place the decimal point at `point`.
    const long long fracLen = static_cast<long long>(fracEnd - fracBegin);
    const long long intLen = static_cast<long long>(intEnd - intBegin);
    const long long point = intLen + exponent + 3; // digits before the ns decimal point
    auto digitAt = [&](long long k) -> int {
        if (k < intLen)
            return literal[intBegin + static_cast<std::size_t>(k)] - '0';
        return literal[fracBegin + static_cast<std::size_t>(k - intLen)] - '0';
    };
    const long long total = intLen + fracLen;
    std::uint64_t value = 0;
    constexpr std::uint64_t kLimit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    for (long long k = 0; k < point; ++k) {
        const int digit = k < total ? digitAt(k) : 0;
        if (value == 0 && digit == 0)
            continue;
        if (value > (kLimit - static_cast<std::uint64_t>(digit)) / 10)
            return std::nullopt;
        value = value * 10 + static_cast<std::uint64_t>(digit);
    }
    // Round half away from zero on the first dropped digit.
    const long long firstDropped = point < 0 ? -1 : point;
    if (firstDropped >= 0 && firstDropped < total && digitAt(firstDropped) >= 5) {
        if (value == kLimit)
            return std::nullopt;
        ++value;
    }
    const auto result = static_cast<std::int64_t>(value);
    return negative ? -result : result;
}

} // namespace pyrometer::trace
