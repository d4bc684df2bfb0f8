#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pyrometer {

// "812 ns", "12.3 µs", "4.56 ms", "1.23 s": three significant digits, unit chosen so the
// number is below 1000.
std::string formatDuration(std::int64_t nanoseconds);

// The unit a user asked durations to be shown in; Auto is formatDuration's choice.
enum class TimeUnit { Auto, Nanoseconds, Microseconds, Milliseconds, Seconds };
// In a fixed unit, three significant digits where the value allows it ("0.012 ms",
// "1234 ms"); Auto is formatDuration(nanoseconds).
std::string formatDuration(std::int64_t nanoseconds, TimeUnit unit);
// "auto", "ns", "us", "ms", "s" and back; nullopt for anything else.
std::string_view timeUnitName(TimeUnit unit);
std::optional<TimeUnit> timeUnitFromName(std::string_view name);

// Bytes in a binary unit, for axes and scales.
inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * kKiB;
inline constexpr double kGiB = 1024.0 * kMiB;

// Nanoseconds in a millisecond, for axes and figures in ms.
inline constexpr double kNsPerMs = 1e6;

// "512 B", "1.5 KiB", "230 MiB", "4.2 GiB".
std::string formatBytes(std::uint64_t bytes);

// "1.23k", "4.56M": for counts in tight table cells.
std::string formatCount(std::uint64_t count);

// "1 linear layer", "3 linear layers": the count and the word, with an "s" unless it is one.
std::string countOf(std::int64_t count, std::string_view word);

} // namespace pyrometer
