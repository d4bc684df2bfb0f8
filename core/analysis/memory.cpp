#include "core/analysis/memory.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

namespace pyrometer::analysis {

std::string deviceName(std::int32_t deviceType, std::int32_t deviceId)
{
    if (deviceType == 0)
        return "cpu";
    // c10::DeviceType's numbers, named as torch names them.
    static const std::pair<std::int32_t, std::string_view> names[] = {{1, "cuda"}, {6, "hip"},   {8, "maia"},
                                                                      {9, "xla"},  {12, "xpu"},  {13, "mps"},
                                                                      {15, "hpu"}, {19, "mtia"}, {20, "privateuseone"}};
    for (const auto &[type, name] : names)
        if (type == deviceType)
            return std::string(name) + ":" + std::to_string(deviceId);
    return "device" + std::to_string(deviceType) + ":" + std::to_string(deviceId);
}

MemoryReport buildMemoryReport(const TraceIndex &index, const MemoryOptions &options, const StopToken *stop)
{
    const auto &trace = *index.trace;
    const auto &memory = trace.memory;
    const auto &order = index.memoryByTime;
    if (stop && stop->stopRequested())
        return {};

    struct State {
        DeviceMemory device;
        std::int64_t running = 0;
        bool seen = false;
        std::unordered_map<std::uint32_t, AllocatingOp> ops; // by op name id
    };
    std::map<std::pair<std::int32_t, std::int32_t>, State> states;
    // Events before the range only move the running sums.
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto m = order[k];
        if (memory.time[m] >= options.range.end)
            break;
        const auto key = std::make_pair(memory.deviceType[m], memory.deviceId[m]);
        auto &state = states[key];
        const auto bytes = memory.bytes[m];
        state.running += bytes;
        const auto time = memory.time[m];
        if (!options.range.contains(time))
            continue;
        auto &d = state.device;
        if (!state.seen) {
            state.seen = true;
            d.device = deviceName(key.first, key.second);
            d.deviceType = key.first;
            d.deviceId = key.second;
            d.peakTimeNs = time;
            d.peakBytes = std::numeric_limits<std::int64_t>::min();
        }
        const bool fromTotals = memory.totalAllocated[m] >= 0;
        const auto level = fromTotals ? memory.totalAllocated[m] : state.running;
        d.peakFromTotals = d.peakFromTotals || fromTotals;
        if (level > d.peakBytes) {
            d.peakBytes = level;
            d.peakTimeNs = time;
        }
        if (options.curves) {
            d.allocated.push_back({time, level});
            if (memory.totalReserved[m] >= 0)
                d.reserved.push_back({time, memory.totalReserved[m]});
        }
        if (bytes > 0) {
            ++d.allocations;
            if (const auto owner = index.memoryOwner[m]; owner.isValid()) {
                const auto name = trace.track(owner.track).eventName[owner.event.value];
                auto &op = state.ops[name.value];
                ++op.allocations;
                op.allocatedBytes += bytes;
            }
        } else if (bytes < 0) {
            ++d.frees;
        }
    }
    MemoryReport report;
    for (auto &[key, state] : states) {
        if (!state.seen)
            continue;
        for (auto &[name, op] : state.ops) {
            op.name = std::string(trace.string(trace::StringId(name)));
            state.device.topOps.push_back(std::move(op));
        }
        auto &top = state.device.topOps;
        std::sort(top.begin(), top.end(), [](const AllocatingOp &a, const AllocatingOp &b) {
            return a.allocatedBytes > b.allocatedBytes || (a.allocatedBytes == b.allocatedBytes && a.name < b.name);
        });
        if (top.size() > options.topOps)
            top.resize(options.topOps);
        report.devices.push_back(std::move(state.device));
    }
    return report;
}

} // namespace pyrometer::analysis
