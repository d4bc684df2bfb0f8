#pragma once

// Whether a difference between two sets of repeated measurements is more than their noise: 95%
// confidence intervals of a mean and of a ratio of two means, from each set's mean, sample
// standard deviation and count alone (so that saved results without their samples still tell).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer {

// What a set of repeated measurements says of its mean.
struct Sample {
    double mean = 0;
    double std = 0; // sample standard deviation (n - 1)
    std::size_t n = 0;
    bool operator==(const Sample &) const = default;
};

struct Interval {
    double low = 0;
    double high = 0;
    bool contains(double value) const { return low <= value && value <= high; }
    bool operator==(const Interval &) const = default;
};

// The mean, sample standard deviation and count of values.
Sample sampleOf(const std::vector<double> &values);

// The two-sided 95% quantile of Student's t with df degrees of freedom (12.706 at 1, 1.960 as df
// grows): the table below 10 degrees, the Cornish-Fisher expansion above.
double studentT975(double df);

// The 95% confidence interval of a sample's mean; nothing with fewer than two measurements.
std::optional<Interval> meanInterval(const Sample &sample);

// The 95% confidence interval of numerator.mean / denominator.mean (a speedup: the baseline's
// latency over a variant's), on the log scale by the delta method with Welch's degrees of
// freedom; nothing with fewer than two measurements on either side or a mean that is not
// positive.
std::optional<Interval> ratioInterval(const Sample &numerator, const Sample &denominator);

// "within noise" when the interval holds 1 (no difference), else "". Nothing to say without one.
bool withinNoise(const std::optional<Interval> &ratio);

// "1.42× (95% CI 1.31–1.55)" or "1.02× (95% CI 0.97–1.08, within noise)"; the ratio alone
// without an interval.
std::string ratioText(double ratio, const std::optional<Interval> &interval);

} // namespace pyrometer
