#include "core/model/latency.h"

#include "core/util/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pyrometer::model {

LatencyStats latencyStats(std::vector<double> samples)
{
    LatencyStats stats;
    if (samples.empty())
        return stats;
    std::sort(samples.begin(), samples.end());
    const double n = double(samples.size());
    stats.n = samples.size();
    stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
    double squares = 0;
    for (const auto sample : samples)
        squares += (sample - stats.mean) * (sample - stats.mean);
    stats.std = samples.size() > 1 ? std::sqrt(squares / (n - 1)) : 0;
    stats.min = samples.front();
    stats.max = samples.back();
    stats.p50 = percentile(samples, 50);
    stats.p90 = percentile(samples, 90);
    stats.p99 = percentile(samples, 99);
    return stats;
}

} // namespace pyrometer::model
