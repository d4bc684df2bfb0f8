#include "core/snapshot/tracejoin.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

namespace pyrometer::snapshot {

namespace {

constexpr std::int64_t kMiB = std::int64_t(1) << 20;
// The offsets of most trace allocations agree within this when it is the right one.
constexpr std::int64_t kVoteWindowNs = 50'000;
// At most this many of the trace's allocations vote for an offset.
constexpr std::size_t kVoters = 512;

// Times past ±2^61 ns (73 years) and offsets past ±2^62 are clamped there, so that no sum or
// difference of them overflows, whatever a damaged file holds.
constexpr std::int64_t kTimeLimit = std::int64_t(1) << 61;
constexpr std::int64_t kOffsetLimit = std::int64_t(1) << 62;

std::int64_t clampTime(std::int64_t ns)
{
    return std::clamp(ns, -kTimeLimit, kTimeLimit);
}

// Microseconds to nanoseconds, clamped.
std::int64_t nanoseconds(std::int64_t us)
{
    return clampTime(std::clamp(us, -kTimeLimit / 1000, kTimeLimit / 1000) * 1000);
}

// Does the trace's [memory] size fit the snapshot's? The profiler reports the block, which the
// allocator may have rounded up (to 512 bytes, to 2 MiB, or a whole cached block below the
// split threshold) from what the snapshot recorded.
bool sizesFit(std::int64_t traceBytes, std::int64_t snapshotBytes)
{
    return traceBytes + 511 >= snapshotBytes && traceBytes - snapshotBytes <= 20 * kMiB + snapshotBytes / 8;
}

// The snapshot's allocations on the device at each address, in time order.
struct Allocations {
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> positions;
    std::vector<std::int64_t> timeNs; // per replay position (the snapshot's clock)
};

Allocations allocationsByAddress(const Snapshot &snapshot, const DeviceReplay &device)
{
    Allocations out;
    const auto &ev = snapshot.events;
    out.timeNs.resize(device.events.size());
    for (std::size_t p = 0; p < device.events.size(); ++p) {
        const auto e = device.events[p];
        out.timeNs[p] = nanoseconds(ev.timeUs[e]);
        if (ev.action[e] == Action::Alloc)
            out.positions[ev.addr[e]].push_back(std::uint32_t(p));
    }
    return out;
}

std::vector<std::uint32_t> traceAllocations(const trace::Trace &trace, int device)
{
    std::vector<std::uint32_t> out;
    const auto &m = trace.memory;
    for (std::uint32_t i = 0; i < m.size(); ++i) {
        if (m.deviceType[i] != 0 && m.deviceId[i] == device && m.bytes[i] > 0)
            out.push_back(i);
    }
    return out;
}

// The clock offset most of a sample of the trace's allocations agree on, within kVoteWindowNs:
// nullopt when no offset gathers enough of them.
std::optional<std::int64_t> voteOffset(const Snapshot &snapshot, const DeviceReplay &device, const trace::Trace &trace,
                                       const std::vector<std::uint32_t> &traceAllocs, const Allocations &allocs,
                                       std::size_t &votes, std::size_t &voters)
{
    std::vector<std::int64_t> diffs;
    const std::size_t stride = std::max<std::size_t>(1, traceAllocs.size() / kVoters);
    voters = 0;
    for (std::size_t k = 0; k < traceAllocs.size(); k += stride) {
        const auto m = traceAllocs[k];
        const auto found = allocs.positions.find(trace.memory.address[m]);
        if (found == allocs.positions.end())
            continue;
        bool any = false;
        for (const auto p : found->second) {
            if (!sizesFit(trace.memory.bytes[m], snapshot.events.size[device.events[p]]))
                continue;
            diffs.push_back(clampTime(trace.memory.time[m]) - allocs.timeNs[p]);
            any = true;
        }
        voters += any ? 1 : 0;
    }
    std::sort(diffs.begin(), diffs.end());
    std::size_t best = 0;
    std::size_t bestFrom = 0;
    for (std::size_t from = 0, to = 0; from < diffs.size(); ++from) {
        while (to < diffs.size() && diffs[to] - diffs[from] <= kVoteWindowNs)
            ++to;
        if (to - from > best) {
            best = to - from;
            bestFrom = from;
        }
    }
    votes = best;
    if (best == 0 || best < std::min<std::size_t>(3, voters) || best * 4 < voters)
        return std::nullopt;
    return diffs[bestFrom + best / 2]; // the median of the window's
}

std::string offsetText(std::int64_t ns)
{
    char text[48];
    std::snprintf(text, sizeof text, "%+.6f s", double(ns) / 1e9);
    return text;
}

} // namespace

std::optional<std::int64_t> parseOffsetSeconds(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    bool negative = false;
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
        negative = text.front() == '-';
        text.remove_prefix(1);
    }
    const auto dot = text.find('.');
    const auto whole = text.substr(0, dot);
    const auto fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
    const auto digits = [](std::string_view d) {
        return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (whole.empty() || whole.size() > 10 || fraction.size() > 9 || !digits(whole) || !digits(fraction))
        return std::nullopt;
    if (whole.size() == 10 && whole >= std::string_view("4611686018")) // past ±2^62 ns
        return std::nullopt;
    std::int64_t ns = 0;
    for (const char c : whole)
        ns = ns * 10 + (c - '0');
    std::int64_t part = 0;
    for (std::size_t i = 0; i < 9; ++i)
        part = part * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
    ns = ns * 1'000'000'000 + part;
    return negative ? -ns : ns;
}

std::optional<std::uint32_t> TraceJoin::memoryEventOf(std::int64_t position) const
{
    const auto it = std::lower_bound(matches.begin(), matches.end(), position,
                                     [](const Match &m, std::int64_t p) { return std::int64_t(m.position) < p; });
    if (it == matches.end() || std::int64_t(it->position) != position)
        return std::nullopt;
    return it->memoryEvent;
}

TraceJoin joinTrace(const Snapshot &snapshot, const DeviceReplay &device, const trace::Trace &trace,
                    std::optional<std::int64_t> offsetNs)
{
    TraceJoin join;
    join.device = device.device;
    const auto traceAllocs = traceAllocations(trace, device.device);
    join.traceAllocations = traceAllocs.size();
    const auto deviceText = "device " + std::to_string(device.device);
    if (!snapshot.hasTimes) {
        join.message = "The snapshot has no times (torch wrote time_us from 2.1 on): it cannot be placed on the "
                       "trace's clock.";
        return join;
    }
    if (traceAllocs.empty()) {
        join.message = "The trace has no [memory] events of " + deviceText +
                       ": profile with profile_memory=True to join it with a snapshot.";
        return join;
    }
    const auto allocs = allocationsByAddress(snapshot, device);
    if (offsetNs) {
        join.offsetNs = std::clamp(*offsetNs, -kOffsetLimit, kOffsetLimit);
        join.offsetFromUser = true;
    } else {
        std::size_t votes = 0;
        std::size_t voters = 0;
        const auto offset = voteOffset(snapshot, device, trace, traceAllocs, allocs, votes, voters);
        if (!offset) {
            join.message = voters == 0 ? "None of the trace's allocations on " + deviceText +
                                             " is at an address the snapshot allocated: is it the same run?"
                                       : "No clock offset lines up the trace's allocations with the snapshot's (at "
                                         "best " +
                                             std::to_string(votes) + " of " + std::to_string(voters) +
                                             "): is it the same run? Set the offset to join them anyway.";
            return join;
        }
        join.offsetNs = *offset;
    }

    std::vector<bool> taken(device.events.size(), false);
    for (const auto m : traceAllocs) {
        const auto found = allocs.positions.find(trace.memory.address[m]);
        if (found == allocs.positions.end())
            continue;
        const auto &positions = found->second;
        // On the snapshot's clock.
        const auto want = std::clamp(clampTime(trace.memory.time[m]) - join.offsetNs, -kOffsetLimit, kOffsetLimit);
        auto it = std::lower_bound(positions.begin(), positions.end(), want,
                                   [&](std::uint32_t p, std::int64_t t) { return allocs.timeNs[p] < t; });
        // The nearest free candidate on either side, within the tolerance.
        std::int64_t bestDistance = kJoinToleranceNs + 1;
        std::uint32_t best = 0;
        const auto consider = [&](std::uint32_t p) {
            const auto distance = std::llabs(allocs.timeNs[p] - want);
            if (distance < bestDistance && !taken[p] &&
                sizesFit(trace.memory.bytes[m], snapshot.events.size[device.events[p]])) {
                bestDistance = distance;
                best = p;
            }
        };
        for (auto after = it; after != positions.end() && allocs.timeNs[*after] - want <= kJoinToleranceNs; ++after)
            consider(*after);
        for (auto before = it; before != positions.begin();) {
            --before;
            if (want - allocs.timeNs[*before] > kJoinToleranceNs)
                break;
            consider(*before);
        }
        if (bestDistance > kJoinToleranceNs)
            continue;
        taken[best] = true;
        join.matches.push_back({best, m});
        join.spreadNs = std::max(join.spreadNs, bestDistance);
    }
    std::sort(join.matches.begin(), join.matches.end(),
              [](const auto &a, const auto &b) { return a.position < b.position; });
    join.matched = join.matches.size();
    join.joined = join.matched > 0 || join.offsetFromUser;
    const auto counts = std::to_string(join.matched) + " of the trace's " + std::to_string(join.traceAllocations) +
                        " allocations on " + deviceText;
    if (join.offsetFromUser)
        join.message =
            "Joined at the offset set, " + offsetText(join.offsetNs) + ": " + counts + " are the snapshot's.";
    else
        join.message = "Joined: " + counts + " are the snapshot's, at a clock offset of " + offsetText(join.offsetNs) +
                       " (within " + std::to_string(join.spreadNs / 1000) + " µs).";
    return join;
}

std::optional<AllocationOp> allocationOp(const trace::Trace &trace, const TraceJoin &join, std::int64_t position)
{
    const auto m = join.memoryEventOf(position);
    if (!m)
        return std::nullopt;
    const auto trackId = trace.memory.track[*m];
    if (!trackId.isValid() || trackId.value >= trace.tracks.size())
        return std::nullopt;
    const auto &track = trace.track(trackId);
    auto e = trace.sliceAt(trackId, trace.memory.time[*m]);
    if (!e.isValid())
        return std::nullopt;
    // What only allocates: the op that called it is the one to name.
    static constexpr std::array<std::string_view, 7> kPrimitives = {
        "aten::empty",   "aten::empty_strided", "aten::empty_like", "aten::new_empty", "aten::new_empty_strided",
        "aten::resize_", "aten::empty_permuted"};
    std::vector<trace::EventIndex> chain;
    for (auto at = e; at.isValid(); at = track.parent[at.value])
        chain.push_back(at);
    AllocationOp op;
    op.track = trackId;
    op.event = chain.front();
    for (const auto at : chain) {
        const auto name = trace.string(track.eventName[at.value]);
        if (std::find(kPrimitives.begin(), kPrimitives.end(), name) == kPrimitives.end()) {
            op.event = at;
            break;
        }
    }
    op.name = std::string(trace.string(track.eventName[op.event.value]));
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (!op.path.empty())
            op.path += " › ";
        op.path += trace.string(track.eventName[it->value]);
    }
    return op;
}

std::unordered_map<std::string, std::vector<GroupOp>> opsByGroup(const Snapshot &snapshot, const DeviceReplay &device,
                                                                 const std::vector<LiveBlock> &live, GroupBy by,
                                                                 const trace::Trace &trace, const TraceJoin &join)
{
    std::unordered_map<std::string, std::vector<GroupOp>> groups;
    if (join.matches.empty())
        return groups;
    std::unordered_map<std::uint32_t, std::string> stackKeys; // a folded stack per stack, not per block
    for (const auto &block : live) {
        if (block.position < 0)
            continue;
        const auto op = allocationOp(trace, join, block.position);
        if (!op)
            continue;
        std::string key;
        if (by == GroupBy::Stack) {
            auto it = stackKeys.find(block.stack.value);
            if (it == stackKeys.end())
                it = stackKeys.emplace(block.stack.value, foldedStack(snapshot, block.stack)).first;
            key = it->second;
        } else {
            key = groupKey(snapshot, device, block, by);
        }
        auto &ops = groups[key];
        auto it = std::find_if(ops.begin(), ops.end(), [&](const GroupOp &g) { return g.name == op->name; });
        if (it == ops.end()) {
            ops.push_back({op->name, op->path, 0, 0, op->track, op->event});
            it = ops.end() - 1;
        }
        it->bytes += block.size;
        ++it->blocks;
        if (block.size > it->largestBlock) {
            it->largestBlock = block.size;
            it->path = op->path;
            it->track = op->track;
            it->event = op->event;
        }
    }
    for (auto &[key, ops] : groups)
        std::sort(ops.begin(), ops.end(), [](const GroupOp &a, const GroupOp &b) {
            return a.bytes != b.bytes ? a.bytes > b.bytes : a.name < b.name;
        });
    return groups;
}

std::vector<trace::CounterSeries> snapshotCounters(const Snapshot &snapshot, const DeviceReplay &device,
                                                   const trace::Trace &trace, const TraceJoin &join)
{
    if (!join.joined || trace.processes.empty() || device.events.empty())
        return {};
    // Beside the trace's own memory curves of the device, else in the first process.
    trace::ProcessId process(0);
    for (std::uint32_t i = 0; i < trace.memory.size(); ++i) {
        if (trace.memory.deviceType[i] != 0 && trace.memory.deviceId[i] == device.device &&
            trace.memory.track[i].isValid() && trace.memory.track[i].value < trace.tracks.size()) {
            process = trace.track(trace.memory.track[i]).process;
            break;
        }
    }
    // Short enough for the Timeline's row labels; the Timeline reads a "Snapshot " counter in bytes.
    const auto suffix = " (device " + std::to_string(device.device) + ")";
    trace::CounterSeries active{process, "Snapshot active" + suffix, {}, {}};
    trace::CounterSeries reserved{process, "Snapshot reserved" + suffix, {}, {}};
    const auto add = [&](std::int64_t time, std::int64_t activeBytes, std::int64_t reservedBytes) {
        for (auto [series, value] : {std::pair{&active, activeBytes}, std::pair{&reserved, reservedBytes}}) {
            if (!series->time.empty() && series->time.back() == time) {
                series->value.back() = double(value); // the last event at one instant stands
            } else {
                series->time.push_back(time);
                series->value.push_back(double(value));
            }
        }
    };
    const auto start = trace.info.spanStart;
    const auto end = trace.info.spanEnd;
    std::size_t p = 0;
    const auto timeOf = [&](std::size_t position) {
        return nanoseconds(snapshot.events.timeUs[device.events[position]]) + join.offsetNs;
    };
    while (p < device.events.size() && timeOf(p) < start)
        ++p;
    // What was in force when the trace begins.
    add(start, p == 0 ? device.activeAtStart : device.active[p - 1],
        p == 0 ? device.reservedAtStart : device.reserved[p - 1]);
    for (; p < device.events.size() && timeOf(p) <= end; ++p)
        add(std::max(start, timeOf(p)), device.active[p], device.reserved[p]);
    return {std::move(active), std::move(reserved)};
}

} // namespace pyrometer::snapshot
