#include "core/analysis/diff.h"

#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#include "core/analysis/steps.h"
#include "core/analysis/stepspans.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace pyrometer::analysis {
namespace {

double percentOf(std::int64_t delta, std::int64_t base)
{
    return base != 0 ? 100.0 * static_cast<double>(delta) / static_cast<double>(base) : 0.0;
}

struct Side {
    std::int64_t ns = 0;
    std::uint64_t calls = 0;
    bool present = false;
};

// The durations (ms) of a trace's steady steps: stepMean's, over the steps' spans.
Sample steadySteps(const TraceIndex &index, const StopToken *stop)
{
    std::vector<std::int64_t> durations;
    for (const auto &step : buildStepSpans(index, stop).steps)
        durations.push_back(step.durationNs());
    const auto mean = stepMean(durations);
    std::vector<double> steady;
    for (std::size_t i = 0; i < durations.size(); ++i)
        if (mean.kinds[i] == StepKind::Steady)
            steady.push_back(double(durations[i]) / 1e6);
    return sampleOf(steady);
}

} // namespace

std::optional<double> DiffRow::deltaPercent() const
{
    if (baseNs == 0 && otherNs != 0)
        return std::nullopt;
    return percentOf(deltaNs(), baseNs);
}
double DiffTotal::deltaPercent() const
{
    return percentOf(deltaNs(), baseNs);
}

std::string_view presenceName(Presence presence)
{
    switch (presence) {
    case Presence::Both: return "both";
    case Presence::BaseOnly: return "base_only";
    case Presence::OtherOnly: return "other_only";
    }
    return "both";
}

TraceDiff diffTraces(const TraceIndex &base, const TraceIndex &other, const StopToken *stop)
{
    std::map<std::pair<std::string, std::string>, std::pair<Side, Side>> entries;
    TraceDiff diff;
    const auto collect = [&](const TraceIndex &index, bool isBase) -> bool {
        const auto ops = buildOpTable(index, {}, stop);
        const auto kernels = buildKernelTable(index, {}, stop);
        if (stop && stop->stopRequested())
            return false;
        auto &opTotal = diff.ops;
        auto &kernelTotal = diff.kernels;
        for (const auto &row : ops.rows) {
            auto &side = isBase ? entries[{"op", row.name}].first : entries[{"op", row.name}].second;
            side = {side.ns + row.selfNs, side.calls + row.calls, true};
            (isBase ? opTotal.baseNs : opTotal.otherNs) += row.selfNs;
        }
        for (const auto &row : kernels.rows) {
            const std::pair<std::string, std::string> key{std::string(kindName(row.kind)), row.name};
            auto &side = isBase ? entries[key].first : entries[key].second;
            side = {side.ns + row.totalNs, side.calls + row.count, true};
            (isBase ? kernelTotal.baseNs : kernelTotal.otherNs) += row.totalNs;
        }
        return true;
    };
    if (!collect(base, true) || !collect(other, false))
        return {};
    for (const auto &[key, sides] : entries) {
        DiffRow row;
        row.kind = key.first;
        row.name = key.second;
        row.baseNs = sides.first.ns;
        row.otherNs = sides.second.ns;
        row.baseCalls = sides.first.calls;
        row.otherCalls = sides.second.calls;
        row.presence =
            sides.first.present ? (sides.second.present ? Presence::Both : Presence::BaseOnly) : Presence::OtherOnly;
        diff.rows.push_back(std::move(row));
    }
    if (const auto baseSteps = steadySteps(base, stop), otherSteps = steadySteps(other, stop);
        baseSteps.n > 0 && otherSteps.n > 0)
        diff.steps = StepTimes{baseSteps, otherSteps, ratioInterval(otherSteps, baseSteps)};
    std::stable_sort(diff.rows.begin(), diff.rows.end(), [](const DiffRow &a, const DiffRow &b) {
        return std::llabs(a.deltaNs()) > std::llabs(b.deltaNs());
    });
    diff.total = {diff.ops.baseNs + diff.kernels.baseNs, diff.ops.otherNs + diff.kernels.otherNs};
    return diff;
}

} // namespace pyrometer::analysis
