#include "core/model/layerprofile.h"

#include "core/model/modulepath.h"

#include <algorithm>
#include <unordered_map>

namespace pyrometer::model {
namespace {

constexpr int kAtenScope = 0;     // at::RecordScope::FUNCTION
constexpr int kBackwardScope = 1; // at::RecordScope::BACKWARD_FUNCTION
constexpr int kUserScope = 7;     // at::RecordScope::USER_SCOPE ("ProfilerStep#N")

bool isOp(const ProfiledOp &op)
{
    return op.scope == kAtenScope || op.scope == kBackwardScope;
}

} // namespace

ProfileReport summarizeProfile(const FlopsReport &flops, const RecordedProfile &events)
{
    ProfileReport report;
    report.path = flops.path;
    report.inputs = flops.inputs;
    report.iterations = std::max(1, events.iterations);
    report.totalMacs = flops.totalMacs;
    report.totalFlops = flops.totalFlops;
    std::unordered_map<std::string, std::size_t> index;
    for (const auto &row : flops.rows) {
        LayerRow layer;
        layer.module = row.module;
        layer.type = row.type;
        layer.depth = row.depth;
        layer.leaf = row.leaf;
        layer.calls = row.calls;
        layer.outputShapes = row.outputShapes;
        layer.params = row.params;
        layer.macs = row.macs;
        layer.flops = row.flops;
        layer.bytes = row.bytes;
        layer.elementBytes = row.elementBytes;
        layer.dtype = row.dtype;
        index[layer.module] = report.rows.size();
        report.rows.push_back(std::move(layer));
    }
    if (report.rows.empty()) {
        report.rows.push_back(LayerRow{});
        index[""] = 0;
    }
    const auto rowOf = [&](const std::string &name) -> LayerRow & {
        return nearestModuleRow(report.rows, index, name);
    };
    std::vector<ModulePaths::Module> modules;
    for (const auto &row : flops.rows)
        modules.push_back({row.module, row.type});
    const ModulePaths paths(modules);

    // Forward time: the ProfilerStep ranges.
    std::int64_t stepsNs = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> steps;
    for (const auto &op : events.ops) {
        if (op.scope == kUserScope && op.name.rfind("ProfilerStep#", 0) == 0) {
            stepsNs += op.durationNs;
            steps.emplace_back(op.startNs, op.startNs + op.durationNs);
        }
    }

    // Outermost aten ops per thread (events are sorted by start): their time is the module's.
    struct Open {
        std::int64_t end;
        std::string module;
    };
    std::unordered_map<std::uint64_t, Open> open; // per thread: the outermost op running
    std::size_t memory = 0;
    const auto chargeMemoryBefore = [&](std::int64_t time) {
        for (; memory < events.memory.size() && events.memory[memory].timeNs < time; ++memory) {
            const auto &event = events.memory[memory];
            if (event.bytes <= 0)
                continue;
            const auto it = open.find(event.threadId);
            const bool inside = it != open.end() && event.timeNs <= it->second.end;
            rowOf(inside ? it->second.module : std::string()).selfAllocatedBytes += event.bytes;
        }
    };
    // Device time: each op's own launches go to its own module (a nested op runs in its
    // outermost op's module or a deeper one).
    std::int64_t deviceNs = 0;
    for (const auto &op : events.ops) {
        if (op.deviceNs < 0)
            continue;
        report.deviceTimes = true;
        deviceNs += op.deviceNs;
        if (op.deviceNs > 0)
            rowOf(paths.name(op.moduleFrames)).selfDeviceMs += double(op.deviceNs) / 1e6;
    }
    for (const auto &op : events.ops) {
        if (!isOp(op))
            continue;
        chargeMemoryBefore(op.startNs);
        auto &current = open[op.threadId];
        if (op.startNs < current.end)
            continue; // nested in an outermost op
        current.end = op.startNs + op.durationNs;
        current.module = paths.name(op.moduleFrames);
        rowOf(current.module).selfMs += double(op.durationNs) / 1e6;
    }
    chargeMemoryBefore(INT64_MAX);

    // Peak: the highest running sum of allocations and frees within a step (the allocator's
    // own total is not reported by every libtorch build).
    for (const auto &[start, end] : steps) {
        std::int64_t running = 0;
        std::int64_t peak = 0;
        for (const auto &event : events.memory) {
            if (event.timeNs < start || event.timeNs > end)
                continue;
            running += event.bytes;
            peak = std::max(peak, running);
        }
        report.peakMemoryBytes = std::max(report.peakMemoryBytes, peak);
    }

    const double perIteration = 1.0 / double(report.iterations);
    for (auto &row : report.rows) {
        row.selfMs *= perIteration;
        row.selfDeviceMs *= perIteration;
        row.selfAllocatedBytes = std::int64_t(double(row.selfAllocatedBytes) * perIteration);
        row.totalMs = row.selfMs;
        row.deviceMs = row.selfDeviceMs;
        row.allocatedBytes = row.selfAllocatedBytes;
    }
    report.deviceForwardMs = double(deviceNs) / 1e6 * perIteration;
    for (auto i = report.rows.size(); i-- > 1;) {
        auto &parent = rowOf(parentOf(report.rows[i].module));
        parent.totalMs += report.rows[i].totalMs;
        parent.deviceMs += report.rows[i].deviceMs;
        parent.allocatedBytes += report.rows[i].allocatedBytes;
    }
    report.forwardMs = stepsNs > 0 ? double(stepsNs) / 1e6 * perIteration : report.rows.front().totalMs;
    // The model's own row covers the whole step: interpreter overhead is its self time.
    auto &root = report.rows.front();
    if (report.forwardMs > root.totalMs) {
        root.selfMs += report.forwardMs - root.totalMs;
        root.totalMs = report.forwardMs;
    }
    for (auto &row : report.rows) {
        row.percent = report.forwardMs > 0 ? 100.0 * row.totalMs / report.forwardMs : 0;
        row.gflopsPerSecond = row.totalMs > 0 ? row.flops / (row.totalMs * 1e6) : 0;
    }
    report.events = events;
    return report;
}

} // namespace pyrometer::model
