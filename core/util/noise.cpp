#include "core/util/noise.h"

#include <cmath>
#include <cstdio>
#include <numeric>

namespace pyrometer {

Sample sampleOf(const std::vector<double> &values)
{
    Sample sample;
    sample.n = values.size();
    if (values.empty())
        return sample;
    sample.mean = std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
    double squares = 0;
    for (const auto value : values)
        squares += (value - sample.mean) * (value - sample.mean);
    sample.std = values.size() > 1 ? std::sqrt(squares / double(values.size() - 1)) : 0;
    return sample;
}

double studentT975(double df)
{
    // The table below 10 degrees (fractional ones, as Welch's are, between its rows), the
    // Cornish-Fisher expansion above, within 0.0005 of the table there.
    static constexpr double kTable[] = {12.706205, 4.302653, 3.182446, 2.776445, 2.570582,
                                        2.446912,  2.364624, 2.306004, 2.262157, 2.228139};
    if (df <= 1)
        return kTable[0];
    if (df < 10) {
        const auto below = std::size_t(df);
        const double fraction = df - double(below);
        return kTable[below - 1] + (kTable[below] - kTable[below - 1]) * fraction;
    }
    constexpr double z = 1.959964;
    const double z3 = z * z * z;
    const double z5 = z3 * z * z;
    const double z7 = z5 * z * z;
    return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df) +
           (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df * df * df);
}

std::optional<Interval> meanInterval(const Sample &sample)
{
    if (sample.n < 2)
        return std::nullopt;
    const double half = studentT975(double(sample.n - 1)) * sample.std / std::sqrt(double(sample.n));
    return Interval{sample.mean - half, sample.mean + half};
}

std::optional<Interval> ratioInterval(const Sample &numerator, const Sample &denominator)
{
    if (numerator.n < 2 || denominator.n < 2 || numerator.mean <= 0 || denominator.mean <= 0)
        return std::nullopt;
    // The variance of each mean's logarithm (delta method: var(log m) = var(m) / m^2).
    const double a = numerator.std * numerator.std / (double(numerator.n) * numerator.mean * numerator.mean);
    const double b = denominator.std * denominator.std / (double(denominator.n) * denominator.mean * denominator.mean);
    const double ratio = numerator.mean / denominator.mean;
    if (a + b <= 0)
        return Interval{ratio, ratio};
    const double df = (a + b) * (a + b) / (a * a / double(numerator.n - 1) + b * b / double(denominator.n - 1));
    const double half = studentT975(df) * std::sqrt(a + b);
    return Interval{ratio * std::exp(-half), ratio * std::exp(half)};
}

bool withinNoise(const std::optional<Interval> &ratio)
{
    return ratio && ratio->contains(1.0);
}

std::string ratioText(double ratio, const std::optional<Interval> &interval)
{
    char text[96];
    if (!interval) {
        std::snprintf(text, sizeof text, "%.2f\u00d7", ratio);
        return text;
    }
    std::snprintf(text, sizeof text, "%.2f\u00d7 (95%% CI %.2f\u2013%.2f%s)", ratio, interval->low, interval->high,
                  withinNoise(interval) ? ", within noise" : "");
    return text;
}

} // namespace pyrometer
