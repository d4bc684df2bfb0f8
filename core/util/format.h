#pragma once

#include <cstdint>
#include <string>

namespace pyrometer {

// "812 ns", "12.3 µs", "4.56 ms", "1.23 s": three significant digits, unit chosen so the
// number is below 1000.
std::string formatDuration(std::int64_t nanoseconds);

// "512 B", "1.5 KiB", "230 MiB", "4.2 GiB".
std::string formatBytes(std::uint64_t bytes);

// "1.23k", "4.56M": for counts in tight table cells.
std::string formatCount(std::uint64_t count);

} // namespace pyrometer
