#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// A half-open time range [start, end) in trace nanoseconds. An event belongs to a range when
// its start lies in it; it is then counted whole (self time still subtracts every child, in
// range or not), so a table over adjacent ranges adds up to the table over their union.
struct TimeRange {
    std::int64_t start = std::numeric_limits<std::int64_t>::min();
    std::int64_t end = std::numeric_limits<std::int64_t>::max();

    static constexpr TimeRange all() { return {}; }
    constexpr bool isAll() const { return *this == all(); }
    constexpr bool contains(std::int64_t time) const { return time >= start && time < end; }
    constexpr bool operator==(const TimeRange &) const = default;
};

// The processes a table counts, by process id: a job's combined trace holds each rank's CPU and
// GPU processes, and a rank's own figures count only those. Empty: every process.
struct ProcessSet {
    std::vector<bool> included;

    bool isAll() const { return included.empty(); }
    bool contains(std::uint32_t process) const
    {
        return included.empty() || (process < included.size() && included[process]);
    }
    bool operator==(const ProcessSet &) const = default;
};

// Parses "START_US:END_US" (microseconds, fractions allowed, either side may be empty).
std::optional<TimeRange> parseTimeRange(std::string_view text);

} // namespace pyrometer::analysis
