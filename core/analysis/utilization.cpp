#include "core/analysis/utilization.h"

#include <algorithm>
#include <map>

namespace pyrometer::analysis {

std::vector<DeviceBusy> deviceUtilization(const TraceIndex &index, std::int64_t start, std::int64_t end)
{
    const auto &trace = *index.trace;
    std::map<std::int32_t, std::vector<std::pair<std::int64_t, std::int64_t>>> intervals;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto &track = trace.tracks[t];
        // Every event that starts before the end: one that began earlier may reach into the span.
        const auto last = trace.startRange(trace::TrackId(t), std::numeric_limits<std::int64_t>::min(), end).second;
        for (std::uint32_t i = 0; i < last.value; ++i) {
            if (!isDeviceKind(ti.kind[i]))
                continue;
            const auto a = std::max(track.start[i], start);
            const auto b = std::min(track.start[i] + track.duration[i], end);
            if (a < b)
                intervals[deviceAndStream(trace, trace::TrackId(t), i).first].push_back({a, b});
        }
    }
    std::vector<DeviceBusy> result;
    for (auto &[device, spans] : intervals) {
        std::sort(spans.begin(), spans.end());
        DeviceBusy busy{device, 0, end - start};
        std::int64_t coveredUntil = std::numeric_limits<std::int64_t>::min();
        for (const auto &[a, b] : spans) {
            const auto from = std::max(a, coveredUntil);
            if (b > from)
                busy.busyNs += b - from;
            coveredUntil = std::max(coveredUntil, b);
        }
        result.push_back(busy);
    }
    return result;
}

} // namespace pyrometer::analysis
