#pragma once

#include "core/analysis/steps.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pyrometer::report {

// How a long run of steps is summarised in a report: thousands of steps make neither a
// readable table nor a readable chart, so a report shows their distribution, the slowest of
// them, and a chart of consecutive steps averaged into buckets.

// A series' distribution; percentiles interpolate linearly between order statistics (numpy's
// default, as the model's latency percentiles do), rounded to the nanosecond.
struct Distribution {
    std::size_t count = 0;
    std::int64_t mean = 0;
    std::int64_t p50 = 0;
    std::int64_t p90 = 0;
    std::int64_t p99 = 0;
    std::int64_t max = 0;
    bool operator==(const Distribution &) const = default;
};

Distribution distributionOf(std::vector<std::int64_t> values);

// The steps' durations, and their time in each category.
struct StepDistribution {
    Distribution duration;
    std::array<Distribution, analysis::kStepCategoryCount> categories{};
    bool operator==(const StepDistribution &) const = default;
};

StepDistribution stepDistribution(const analysis::StepBreakdown &steps);

// Indices of the `count` slowest steps, slowest first; ties keep time order.
std::vector<std::size_t> slowestSteps(const analysis::StepBreakdown &steps, std::size_t count);

// Consecutive steps [first, first + count): the mean time per category and the slowest of them.
struct StepBucket {
    std::size_t first = 0;
    std::size_t count = 0;
    std::array<double, analysis::kStepCategoryCount> meanNs{};
    std::int64_t maxNs = 0;
    bool operator==(const StepBucket &) const = default;
};

// At most maxBuckets buckets of equal size (the last one may be shorter) covering every step
// in time order; one step per bucket when there are no more steps than buckets.
std::vector<StepBucket> bucketSteps(const analysis::StepBreakdown &steps, std::size_t maxBuckets);

} // namespace pyrometer::report
