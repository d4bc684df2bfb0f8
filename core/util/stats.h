#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace pyrometer {

// The p-th percentile (0..100) of sorted values, interpolating linearly between order
// statistics (numpy's default); 0 when there are none.
template <typename T>
double percentile(const std::vector<T> &sorted, double p)
{
    if (sorted.empty())
        return 0;
    const double rank = p / 100.0 * double(sorted.size() - 1);
    const auto low = std::size_t(std::floor(rank));
    const auto high = std::min(sorted.size() - 1, low + 1);
    return double(sorted[low]) + (double(sorted[high]) - double(sorted[low])) * (rank - double(low));
}

} // namespace pyrometer
