#include "core/util/format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pyrometer {
namespace {

// Three significant digits: 1.23, 12.3, 123.
std::string threeDigits(double value, const char *unit)
{
    std::array<char, 48> buffer{};
    const double magnitude = std::fabs(value);
    const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
    std::snprintf(buffer.data(), buffer.size(), "%.*f %s", decimals, value, unit);
    return buffer.data();
}

} // namespace

std::string formatDuration(std::int64_t nanoseconds)
{
    const double ns = static_cast<double>(nanoseconds);
    const double magnitude = std::fabs(ns);
    if (magnitude < 1e3)
        return std::to_string(nanoseconds) + " ns";
    // Round first so that 999.96 µs prints as "1.00 ms", not "1000 µs".
    if (magnitude < 999.5e3)
        return threeDigits(ns / 1e3, "\xC2\xB5s");
    if (magnitude < 999.5e6)
        return threeDigits(ns / 1e6, "ms");
    return threeDigits(ns / 1e9, "s");
}

std::string formatDuration(std::int64_t nanoseconds, TimeUnit unit)
{
    struct Scale {
        double divisor;
        int maxDecimals; // digits down to the nanosecond
        const char *suffix;
    };
    Scale scale{};
    switch (unit) {
    case TimeUnit::Auto: return formatDuration(nanoseconds);
    case TimeUnit::Nanoseconds: return std::to_string(nanoseconds) + " ns";
    case TimeUnit::Microseconds: scale = {1e3, 3, "\xC2\xB5s"}; break;
    case TimeUnit::Milliseconds: scale = {1e6, 6, "ms"}; break;
    case TimeUnit::Seconds: scale = {1e9, 9, "s"}; break;
    }
    const double value = static_cast<double>(nanoseconds) / scale.divisor;
    const double magnitude = std::fabs(value);
    if (magnitude >= 1 || nanoseconds == 0)
        return threeDigits(value, scale.suffix);
    // Below one unit: three significant digits, but never finer than a nanosecond.
    const int decimals = std::min(scale.maxDecimals, 2 - static_cast<int>(std::floor(std::log10(magnitude))));
    std::array<char, 48> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%.*f %s", decimals, value, scale.suffix);
    return buffer.data();
}

std::string_view timeUnitName(TimeUnit unit)
{
    switch (unit) {
    case TimeUnit::Auto: return "auto";
    case TimeUnit::Nanoseconds: return "ns";
    case TimeUnit::Microseconds: return "us";
    case TimeUnit::Milliseconds: return "ms";
    case TimeUnit::Seconds: return "s";
    }
    return "auto";
}

std::optional<TimeUnit> timeUnitFromName(std::string_view name)
{
    for (const auto unit : {TimeUnit::Auto, TimeUnit::Nanoseconds, TimeUnit::Microseconds, TimeUnit::Milliseconds,
                            TimeUnit::Seconds}) {
        if (timeUnitName(unit) == name)
            return unit;
    }
    return std::nullopt;
}

std::string formatBytes(std::uint64_t bytes)
{
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    static constexpr std::array<const char *, 5> units{"KiB", "MiB", "GiB", "TiB", "PiB"};
    double value = static_cast<double>(bytes) / 1024.0;
    std::size_t unit = 0;
    while (value >= 999.5 && unit + 1 < units.size()) {
        value /= 1024.0;
        ++unit;
    }
    return threeDigits(value, units[unit]);
}

std::string formatCount(std::uint64_t count)
{
    if (count < 1000)
        return std::to_string(count);
    static constexpr std::array<const char *, 4> suffixes{"k", "M", "G", "T"};
    double value = static_cast<double>(count) / 1000.0;
    std::size_t suffix = 0;
    while (value >= 999.5 && suffix + 1 < suffixes.size()) {
        value /= 1000.0;
        ++suffix;
    }
    std::string text = threeDigits(value, suffixes[suffix]);
    text.erase(text.find(' '), 1);
    return text;
}

std::string countOf(std::int64_t count, std::string_view word)
{
    return std::to_string(count) + " " + std::string(word) + (count == 1 ? "" : "s");
}

} // namespace pyrometer
