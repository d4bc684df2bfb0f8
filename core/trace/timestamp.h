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

} // namespace pyrometer::trace
