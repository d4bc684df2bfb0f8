#include "core/report/stepsummary.h"

#include "core/util/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pyrometer::report {

Distribution distributionOf(std::vector<std::int64_t> values)
{
    Distribution d;
    d.count = values.size();
    if (values.empty())
        return d;
    std::sort(values.begin(), values.end());
    const auto at = [&](double p) { return std::int64_t(std::llround(percentile(values, p))); };
    const double sum = std::accumulate(values.begin(), values.end(), 0.0, [](double s, std::int64_t v) { return s + double(v); });
    d.mean = std::int64_t(std::llround(sum / double(values.size())));
    d.p50 = at(50);
    d.p90 = at(90);
    d.p99 = at(99);
    d.max = values.back();
    return d;
}

StepDistribution stepDistribution(const analysis::StepBreakdown &steps)
{
    StepDistribution result;
    std::vector<std::int64_t> values(steps.steps.size());
    std::transform(steps.steps.begin(), steps.steps.end(), values.begin(), [](const auto &step) { return step.durationNs; });
    result.duration = distributionOf(std::move(values));
    for (std::size_t c = 0; c < analysis::kStepCategoryCount; ++c) {
        std::vector<std::int64_t> category(steps.steps.size());
        std::transform(steps.steps.begin(), steps.steps.end(), category.begin(),
                       [c](const auto &step) { return step.categoryNs[c]; });
        result.categories[c] = distributionOf(std::move(category));
    }
    return result;
}

std::vector<std::size_t> slowestSteps(const analysis::StepBreakdown &steps, std::size_t count)
{
    std::vector<std::size_t> order(steps.steps.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    count = std::min(count, order.size());
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(count), order.end(), [&](std::size_t a, std::size_t b) {
        const auto da = steps.steps[a].durationNs;
        const auto db = steps.steps[b].durationNs;
        return da != db ? da > db : a < b;
    });
    order.resize(count);
    return order;
}

std::vector<StepBucket> bucketSteps(const analysis::StepBreakdown &steps, std::size_t maxBuckets)
{
    std::vector<StepBucket> buckets;
    const std::size_t n = steps.steps.size();
    if (n == 0 || maxBuckets == 0)
        return buckets;
    const std::size_t size = (n + maxBuckets - 1) / maxBuckets;
    for (std::size_t first = 0; first < n; first += size) {
        StepBucket bucket;
        bucket.first = first;
        bucket.count = std::min(size, n - first);
        for (std::size_t i = first; i < first + bucket.count; ++i) {
            const auto &step = steps.steps[i];
            for (std::size_t c = 0; c < analysis::kStepCategoryCount; ++c)
                bucket.meanNs[c] += double(step.categoryNs[c]);
            bucket.maxNs = std::max(bucket.maxNs, step.durationNs);
        }
        for (auto &mean : bucket.meanNs)
            mean /= double(bucket.count);
        buckets.push_back(bucket);
    }
    return buckets;
}

} // namespace pyrometer::report
