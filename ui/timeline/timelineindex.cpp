#include "ui/timeline/timelineindex.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

namespace pyrometer::ui::timeline {

namespace {

void buildLongestTree(SliceRow &row)
{
    const auto n = row.events.size();
    row.longest.assign(2 * n, 0);
    for (std::size_t i = 0; i < n; ++i)
        row.longest[n + i] = std::uint32_t(i);
    const auto longer = [&](std::uint32_t a, std::uint32_t b) { return row.durationAt(b) > row.durationAt(a) ? b : a; };
    for (std::size_t i = n; i-- > 1;)
        row.longest[i] = longer(row.longest[2 * i], row.longest[2 * i + 1]);
}

} // namespace

std::uint32_t SliceRow::longestIn(std::uint32_t from, std::uint32_t to) const
{
    const auto n = std::uint32_t(events.size());
    std::uint32_t best = from;
    const auto consider = [&](std::uint32_t candidate) {
        if (durationAt(candidate) > durationAt(best))
            best = candidate;
    };
    for (std::uint32_t l = from + n, r = to + n; l < r; l >>= 1, r >>= 1) {
        if (l & 1)
            consider(longest[l++]);
        if (r & 1)
            consider(longest[--r]);
    }
    return best;
}

std::uint32_t SliceRow::firstEndingAfter(std::int64_t time, std::uint32_t from) const
{
    // Positions before the answer end at or before `time` and start before it; both hold for
    // a prefix because starts and ends are sorted.
    const auto before = [&](std::uint32_t i) { return ends[i] <= time && starts[i] < time; };
    const auto n = std::uint32_t(events.size());
    if (from >= n || !before(from))
        return from;
    // Gallop: positions from + 1, + 3, + 7, ... until one is not before, then bisect.
    std::uint32_t low = from; // before(low) holds
    std::uint32_t step = 1;
    std::uint32_t high = n;
    while (low + step < n) {
        if (!before(low + step)) {
            high = low + step;
            break;
        }
        low += step;
        step *= 2;
    }
    // before(low) holds, and high is n or a position that is not before.
    while (high - low > 1) {
        const auto middle = low + (high - low) / 2;
        (before(middle) ? low : high) = middle;
    }
    return high;
}

std::shared_ptr<const TimelineIndex> buildTimelineIndex(std::shared_ptr<const trace::Trace> trace, const StopToken &stop,
                                                        std::shared_ptr<const analysis::TraceIndex> analysis)
{
    auto index = std::make_shared<TimelineIndex>();
    index->trace = trace;
    index->trackFirstRow.resize(trace->tracks.size());
    index->trackRowCount.resize(trace->tracks.size());
    index->eventRow.resize(trace->tracks.size());

    for (std::size_t t = 0; t < trace->tracks.size(); ++t) {
        if (stop.stopRequested())
            return nullptr;
        const auto &track = trace->tracks[t];
        // Rows of this track: (lane, depth) -> row, ordered by lane then depth.
        std::map<std::pair<std::uint16_t, std::uint16_t>, std::uint32_t> rowOf;
        for (std::size_t e = 0; e < track.size(); ++e)
            rowOf.try_emplace({track.lane[e], track.depth[e]}, 0);
        const auto first = std::uint32_t(index->rows.size());
        for (auto &[key, row] : rowOf) {
            row = std::uint32_t(index->rows.size());
            index->rows.push_back(SliceRow{trace::TrackId(std::uint32_t(t)), key.first, key.second, {}, {}, {}, {}});
        }
        index->trackFirstRow[t] = first;
        index->trackRowCount[t] = std::uint32_t(rowOf.size());
        auto &eventRow = index->eventRow[t];
        eventRow.resize(track.size());
        for (std::size_t e = 0; e < track.size(); ++e) {
            const auto row = rowOf.at({track.lane[e], track.depth[e]});
            eventRow[e] = row;
            auto &slices = index->rows[row];
            slices.events.push_back(std::uint32_t(e)); // track order is start order
            slices.starts.push_back(track.start[e]);
            slices.ends.push_back(track.start[e] + track.duration[e]);
        }
        for (std::uint32_t r = first; r < index->rows.size(); ++r)
            buildLongestTree(index->rows[r]);

        for (std::size_t e = 0; e < track.size(); ++e) {
            const auto name = trace->string(track.eventName[e]);
            if (name.starts_with("ProfilerStep#") && track.depth[e] <= 1)
                index->steps.push_back({track.start[e], track.start[e] + track.duration[e], std::string(name)});
        }
    }
    std::sort(index->steps.begin(), index->steps.end(), [](const auto &a, const auto &b) { return a.start < b.start; });
    // GPU annotations repeat the CPU's steps: keep one per name.
    std::vector<TimelineIndex::Step> unique;
    std::set<std::string> seen;
    for (auto &step : index->steps) {
        if (seen.insert(step.name).second)
            unique.push_back(std::move(step));
    }
    index->steps = std::move(unique);

    for (const auto &counter : trace->counters)
        index->counterMax.push_back(counter.value.empty() ? 0.0 : *std::max_element(counter.value.begin(), counter.value.end()));
    index->analysis = analysis ? std::move(analysis) : analysis::buildTraceIndex(*trace, &stop);
    if (!index->analysis)
        return nullptr;
    index->spanStart = trace->info.spanStart;
    index->spanEnd = std::max(trace->info.spanEnd, trace->info.spanStart + 1);
    return index;
}

} // namespace pyrometer::ui::timeline
