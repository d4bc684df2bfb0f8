#include "core/analysis/opmemory.h"

#include "core/analysis/memory.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace pyrometer::analysis {

OpMemoryTable buildOpMemoryTable(const TraceIndex &index, const TimeRange &range, const StopToken *stop)
{
    const auto &trace = *index.trace;
    const auto &memory = trace.memory;
    const auto &order = index.memoryByTime;
    using Device = std::pair<std::int32_t, std::int32_t>;
    const auto ownerName = [&](std::uint32_t m) -> std::string_view {
        const auto owner = index.memoryOwner[m];
        if (!owner.isValid())
            return kNoOp;
        return trace.string(trace.track(owner.track).eventName[owner.event.value]);
    };

    // First pass: the rows, and where each device peaks.
    OpMemoryTable table;
    std::map<std::pair<Device, std::string_view>, OpMemoryRow> rows;
    struct Peak {
        std::int64_t running = 0;
        std::int64_t level = std::numeric_limits<std::int64_t>::min();
        std::size_t position = 0; // in memoryByTime
    };
    std::map<Device, Peak> peaks;
    std::size_t end = 0;
    for (; end < order.size(); ++end) {
        const auto m = order[end];
        const auto time = memory.time[m];
        if (time >= range.end)
            break;
        if (stop && (end & 0xFFFFu) == 0 && stop->stopRequested())
            return {};
        const Device device{memory.deviceType[m], memory.deviceId[m]};
        auto &peak = peaks[device];
        const auto bytes = memory.bytes[m];
        peak.running += bytes;
        if (!range.contains(time))
            continue;
        table.hasAddresses = table.hasAddresses || memory.address[m] != 0;
        auto &row = rows[{device, ownerName(m)}];
        if (bytes > 0) {
            ++row.allocations;
            row.allocatedBytes += bytes;
        } else if (bytes < 0) {
            ++row.frees;
            row.freedBytes -= bytes;
        }
        const auto level = memory.totalAllocated[m] >= 0 ? memory.totalAllocated[m] : peak.running;
        if (level > peak.level) {
            peak.level = level;
            peak.position = end;
        }
    }

    // Second pass: the blocks allocated in range and still held at each device's peak.
    std::map<Device, std::unordered_map<std::uint64_t, std::pair<std::string_view, std::int64_t>>> live;
    if (table.hasAddresses) {
        for (std::size_t k = 0; k < end; ++k) {
            const auto m = order[k];
            const Device device{memory.deviceType[m], memory.deviceId[m]};
            if (!range.contains(memory.time[m]) || k > peaks[device].position)
                continue;
            const auto bytes = memory.bytes[m];
            if (bytes > 0)
                live[device][memory.address[m]] = {ownerName(m), bytes};
            else if (bytes < 0)
                live[device].erase(memory.address[m]);
        }
        for (const auto &[device, blocks] : live)
            for (const auto &[address, block] : blocks)
                rows[{device, block.first}].peakBytes += block.second;
    }

    for (auto &[key, row] : rows) {
        row.name = std::string(key.second);
        row.device = deviceName(key.first.first, key.first.second);
        table.rows.push_back(std::move(row));
    }
    std::stable_sort(table.rows.begin(), table.rows.end(),
                     [](const OpMemoryRow &a, const OpMemoryRow &b) { return a.allocatedBytes > b.allocatedBytes; });
    return table;
}

} // namespace pyrometer::analysis
