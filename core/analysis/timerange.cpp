#include "core/analysis/timerange.h"

#include <charconv>
#include <cmath>
#include <string>

namespace pyrometer::analysis {
namespace {

std::optional<std::int64_t> parseMicroseconds(std::string_view text)
{
    double value = 0;
    const auto *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || !std::isfinite(value))
        return std::nullopt;
    return static_cast<std::int64_t>(std::llround(value * 1000.0));
}

} // namespace

std::optional<TimeRange> parseTimeRange(std::string_view text)
{
    const auto colon = text.find(':');
    if (colon == std::string_view::npos)
        return std::nullopt;
    TimeRange range;
    const auto first = text.substr(0, colon);
    const auto second = text.substr(colon + 1);
    if (!first.empty()) {
        const auto value = parseMicroseconds(first);
        if (!value)
            return std::nullopt;
        range.start = *value;
    }
    if (!second.empty()) {
        const auto value = parseMicroseconds(second);
        if (!value)
            return std::nullopt;
        range.end = *value;
    }
    if (range.end < range.start)
        return std::nullopt;
    return range;
}

} // namespace pyrometer::analysis
