#include "core/analysis/kerneltable.h"

#include "core/analysis/graphreplays.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace pyrometer::analysis {

KernelTable buildKernelTable(const TraceIndex &index, const KernelTableOptions &options, const StopToken *stop)
{
    const auto &trace = *index.trace;
    // The compiled region around a launching op, by walking its op parents; remembered per op.
    constexpr std::uint32_t kNoRegion = std::numeric_limits<std::uint32_t>::max();
    std::unordered_map<std::uint64_t, std::uint32_t> regionOfOp;
    const auto regionOf = [&](EventRef op) {
        const auto key = (std::uint64_t(op.track.value) << 32) | op.event.value;
        if (const auto found = regionOfOp.find(key); found != regionOfOp.end())
            return found->second;
        std::uint32_t region = kNoRegion;
        const auto &track = trace.track(op.track);
        const auto &ti = index.track(op.track);
        for (auto e = op.event; e.isValid(); e = ti.opParent[e.value]) {
            if (isCompiledRegionName(trace.string(track.eventName[e.value]))) {
                region = track.eventName[e.value].value;
                break;
            }
        }
        regionOfOp.emplace(key, region);
        return region;
    };
    std::vector<std::unordered_map<std::uint32_t, std::int64_t>> regionTime; // per row: region name -> ns
    using Key = std::tuple<EventKind, std::uint32_t, std::int32_t, std::int32_t>;
    std::map<Key, std::size_t> rowOf;
    std::vector<KernelRow> rows;
    std::vector<std::unordered_map<std::uint32_t, std::int64_t>> opTime; // per row: op name -> ns
    std::map<std::pair<std::int32_t, std::int32_t>, StreamRow> streams;
    std::vector<std::int64_t> graphTime; // per row: time graph replays ran
    // Per row: launching op name -> the provenance its first op with one carries.
    std::vector<std::unordered_map<std::uint32_t, const trace::ExtraArgs *>> sourceOf;
    const auto calls = graphLaunchCalls(index, stop);
    KernelTable table;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice || !options.processes.contains(trace.tracks[t].process.value))
            continue;
        if (stop && stop->stopRequested())
            return {};
        const auto &track = trace.tracks[t];
        const auto [first, last] = eventsIn(trace, trace::TrackId(t), options.range);
        for (auto i = first; i < last; ++i) {
            const auto kind = ti.kind[i];
            if (!isDeviceKind(kind))
                continue;
            const auto [device, stream] = deviceAndStream(trace, trace::TrackId(t), i);
            const Key key{kind, track.eventName[i].value, options.byStream ? device : -1,
                          options.byStream ? stream : -1};
            auto [it, added] = rowOf.try_emplace(key, rows.size());
            if (added) {
                rows.emplace_back();
                rows.back().kind = kind;
                rows.back().name = std::string(trace.string(track.eventName[i]));
                rows.back().device = std::get<2>(key);
                rows.back().stream = std::get<3>(key);
                opTime.emplace_back();
                regionTime.emplace_back();
                graphTime.emplace_back();
                sourceOf.emplace_back();
            }
            auto &row = rows[it->second];
            const auto duration = track.duration[i];
            row.minNs = row.count ? std::min(row.minNs, duration) : duration;
            row.maxNs = row.count ? std::max(row.maxNs, duration) : duration;
            ++row.count;
            row.totalNs += duration;
            table.totalNs += duration;
            if (isGraphEvent(trace, calls, trace::TrackId(t), i)) {
                ++row.graphCount;
                graphTime[it->second] += duration;
                const auto *args = trace.eventArgs(trace::TrackId(t), trace::EventIndex(i));
                if (args && args->graphId > 0) {
                    const auto at = std::lower_bound(row.graphIds.begin(), row.graphIds.end(), args->graphId);
                    if (at == row.graphIds.end() || *at != args->graphId)
                        row.graphIds.insert(at, args->graphId);
                }
            } else if (const auto op = ti.launchOp[i]; op.isValid()) {
                const auto opName = trace.track(op.track).eventName[op.event.value].value;
                opTime[it->second][opName] += duration;
                if (const auto *extra = trace.extra(op.track, op.event); extra && extra->kernelHash.isValid())
                    sourceOf[it->second].try_emplace(opName, extra);
                if (const auto region = regionOf(op); region != kNoRegion)
                    regionTime[it->second][region] += duration;
            }
            auto &s = streams[{device, stream}];
            s.device = device;
            s.stream = stream;
            ++s.count;
            s.totalNs += duration;
        }
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
        auto &row = rows[r];
        if (table.totalNs > 0)
            row.percent = 100.0 * static_cast<double>(row.totalNs) / static_cast<double>(table.totalNs);
        std::pair<std::int64_t, std::string_view> best{-1, {}};
        for (const auto &[name, ns] : opTime[r]) {
            const auto text = trace.string(trace::StringId(name));
            if (ns > best.first || (ns == best.first && text < best.second))
                best = {ns, text};
        }
        row.launchOp =
            graphTime[r] > 0 && graphTime[r] > best.first ? std::string(kGraphReplayOp) : std::string(best.second);
        // Provenance from an op of the name that launched most of its time.
        for (const auto &[name, extra] : sourceOf[r])
            if (trace.string(trace::StringId(name)) == row.launchOp) {
                row.backend = std::string(trace.string(extra->kernelBackend));
                row.hash = std::string(trace.string(extra->kernelHash));
                row.file = std::string(trace.string(extra->kernelFile));
                break;
            }
        // The region of most of its time, when that is inside one at all.
        std::pair<std::int64_t, std::string_view> region{-1, {}};
        std::int64_t inRegions = 0;
        for (const auto &[name, ns] : regionTime[r]) {
            inRegions += ns;
            const auto text = trace.string(trace::StringId(name));
            if (ns > region.first || (ns == region.first && text < region.second))
                region = {ns, text};
        }
        if (2 * inRegions > row.totalNs)
            row.region = std::string(region.second);
    }
    std::sort(rows.begin(), rows.end(), [](const KernelRow &a, const KernelRow &b) {
        if (a.totalNs != b.totalNs)
            return a.totalNs > b.totalNs;
        return std::tie(a.kind, a.name, a.device, a.stream) < std::tie(b.kind, b.name, b.device, b.stream);
    });
    if (options.top > 0 && rows.size() > options.top)
        rows.resize(options.top);
    table.rows = std::move(rows);
    for (auto &[key, s] : streams) {
        if (table.totalNs > 0)
            s.percent = 100.0 * static_cast<double>(s.totalNs) / static_cast<double>(table.totalNs);
        table.streams.push_back(s);
    }
    return table;
}

} // namespace pyrometer::analysis
