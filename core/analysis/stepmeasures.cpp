#include "core/analysis/stepmeasures.h"

#include <charconv>
#include <cmath>
#include <vector>

namespace pyrometer::analysis {

std::string_view stepMeasureName(StepMeasure measure)
{
    switch (measure) {
    case StepMeasure::StepTime: return "step time";
    case StepMeasure::Compute: return "compute";
    case StepMeasure::ExposedCommunication: return "exposed communication";
    case StepMeasure::Wait: return "wait";
    }
    return {};
}

std::optional<std::int64_t> stepMeasureNs(const JobFigures &job, std::size_t rank, std::size_t step,
                                          StepMeasure measure)
{
    if (rank >= job.ranks.size() || step >= job.ranks[rank].steps.size())
        return std::nullopt;
    const auto &s = job.ranks[rank].steps[step];
    switch (measure) {
    case StepMeasure::StepTime: return s.durationNs;
    case StepMeasure::Compute: return s.computeNs;
    case StepMeasure::ExposedCommunication:
        return s.exposedCommunicationNs >= 0 ? std::optional(s.exposedCommunicationNs) : std::nullopt;
    case StepMeasure::Wait:
        if (rank >= job.stepWaitNs.size() || step >= job.stepWaitNs[rank].size())
            return std::nullopt;
        return job.stepWaitNs[rank][step];
    }
    return std::nullopt;
}

double stepMeasureSpread(const JobFigures &job, StepMeasure measure)
{
    std::vector<double> means;
    double stepSum = 0;
    std::size_t stepCount = 0;
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        double sum = 0;
        std::size_t known = 0;
        for (std::size_t s = 0; s < job.ranks[r].steps.size(); ++s) {
            stepSum += double(job.ranks[r].steps[s].durationNs);
            ++stepCount;
            if (const auto value = stepMeasureNs(job, r, s, measure)) {
                sum += double(*value);
                ++known;
            }
        }
        if (known > 0)
            means.push_back(sum / double(known));
    }
    if (means.size() < 2 || stepCount == 0 || stepSum <= 0)
        return 0;
    double mean = 0;
    for (const double m : means)
        mean += m;
    mean /= double(means.size());
    double variance = 0;
    for (const double m : means)
        variance += (m - mean) * (m - mean);
    variance /= double(means.size());
    return std::sqrt(variance) / (stepSum / double(stepCount));
}

StepMeasure mostVaryingMeasure(const JobFigures &job)
{
    auto best = StepMeasure::StepTime;
    double bestSpread = stepMeasureSpread(job, best);
    for (const auto measure : kStepMeasures) {
        if (const double spread = stepMeasureSpread(job, measure); spread > bestSpread) {
            best = measure;
            bestSpread = spread;
        }
    }
    return best;
}

int profilerStepNumber(std::string_view name)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.substr(0, prefix.size()) != prefix || name.size() == prefix.size())
        return -1;
    int number = -1;
    const auto digits = name.substr(prefix.size());
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    return error == std::errc() && end == digits.data() + digits.size() ? number : -1;
}

} // namespace pyrometer::analysis
