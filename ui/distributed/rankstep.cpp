#include "ui/distributed/rankstep.h"

#include "core/trace/trace.h"

#include <algorithm>

namespace pyrometer::ui::distributed {

std::optional<timeline::EventRef> findRankStep(const trace::Trace &combined, const std::string &rankLabel,
                                               const std::string &name, std::int64_t startNs)
{
    // "rank 1 · …", not "rank 17 · …".
    const std::string prefix = rankLabel + " \u00b7 ";
    for (const auto &process : combined.processes) {
        if (process.name != rankLabel && process.name.rfind(prefix, 0) != 0)
            continue;
        for (const auto trackId : process.tracks) {
            const auto &track = combined.track(trackId);
            auto at = std::lower_bound(track.start.begin(), track.start.end(), startNs);
            for (; at != track.start.end() && *at == startNs; ++at) {
                const auto i = std::size_t(at - track.start.begin());
                if (combined.string(track.eventName[i]) == name)
                    return timeline::EventRef{trackId, std::uint32_t(i)};
            }
        }
    }
    return std::nullopt;
}

} // namespace pyrometer::ui::distributed
