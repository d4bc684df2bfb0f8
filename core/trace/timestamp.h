#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pyrometer::trace {

// Converts a JSON number literal in microseconds ("1712195495519689.047", "12", "1.5e3") to
// integer nanoseconds, exactly: the literal's digits are used, never a double, so epoch-µs
// values keep their nanoseconds. Digits beyond the nanosecond are rounded half away from zero.
// Trailing whitespace is ignored. nullopt when the text is not a JSON number or the value does
// not fit in int64 nanoseconds.
std::optional<std::int64_t> microsToNanos(std::string_view literal);

// A JSON integer literal ("123", "-4"); nullopt for anything else (fractions, exponents,
// overflow, strings).
std::optional<std::int64_t> parseInteger(std::string_view literal);

// The same; out of line, with fast paths for what profilers write (inline below: both are
// called for several fields of every event).
std::optional<std::int64_t> microsToNanosSlow(std::string_view literal);
std::optional<std::int64_t> parseIntegerSlow(std::string_view literal);

// The same without std::optional, whose two halves, written apart on the fast and slow paths,
// were read back as one 16-byte value (a store-forwarding stall in every event): false when
// the text is not such a literal.
inline bool parseIntegerTo(std::string_view literal, std::int64_t &out)
{
    while (!literal.empty() && (literal.back() == ' ' || literal.back() == '\n' || literal.back() == '\r' || literal.back() == '\t'))
        literal.remove_suffix(1);
    const bool negative = !literal.empty() && literal[0] == '-';
    const auto digits = literal.substr(negative ? 1 : 0);
    if (digits.empty() || digits.size() > 18) { // 18 digits cannot overflow
        const auto slow = parseIntegerSlow(literal);
        out = slow.value_or(0);
        return slow.has_value();
    }
    std::uint64_t value = 0; // unsigned: wraps harmlessly on non-digits
    bool ok = true;
    for (const char c : digits) {
        ok &= c >= '0' && c <= '9';
        value = value * 10 + static_cast<std::uint64_t>(static_cast<unsigned char>(c) - '0');
    }
    const auto result = static_cast<std::int64_t>(value);
    out = negative ? -result : result;
    return ok;
}

inline std::optional<std::int64_t> parseInteger(std::string_view literal)
{
    std::int64_t value = 0;
    if (!parseIntegerTo(literal, value))
        return std::nullopt;
    return value;
}

inline bool microsToNanosTo(std::string_view literal, std::int64_t &out)
{
    const auto slowPath = [&] {
        const auto slow = microsToNanosSlow(literal);
        out = slow.value_or(0);
        return slow.has_value();
    };
    // Up to 16 integer digits (epoch microseconds) and up to 3 decimals: at most 19 digits,
    // which cannot overflow 64 bits unsigned. Anything else takes the exact general path.
    const char *p = literal.data();
    const char *end = p + literal.size();
    const bool negative = p != end && *p == '-';
    p += negative;
    const char *intBegin = p;
    std::uint64_t value = 0;
    while (p != end && *p >= '0' && *p <= '9' && p - intBegin < 16)
        value = value * 10 + static_cast<std::uint64_t>(*p++ - '0');
    const auto intDigits = p - intBegin;
    if (intDigits == 0 || (intDigits > 1 && *intBegin == '0'))
        return slowPath();
    int decimals = 0;
    if (p != end && *p == '.') {
        ++p;
        while (p != end && *p >= '0' && *p <= '9' && decimals < 3) {
            value = value * 10 + static_cast<std::uint64_t>(*p++ - '0');
            ++decimals;
        }
        if (decimals == 0)
            return slowPath();
    }
    if (p != end) // more text: blanks, digits, an exponent
        return slowPath();
    for (; decimals < 3; ++decimals)
        value *= 10;
    if (value > static_cast<std::uint64_t>(INT64_MAX))
        return slowPath();
    const auto result = static_cast<std::int64_t>(value);
    out = negative ? -result : result;
    return true;
}

inline std::optional<std::int64_t> microsToNanos(std::string_view literal)
{
    std::int64_t value = 0;
    if (!microsToNanosTo(literal, value))
        return std::nullopt;
    return value;
}

} // namespace pyrometer::trace
