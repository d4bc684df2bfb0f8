#include "core/snapshot/replay.h"

#include "core/snapshot/segmentsat.h"

#include "core/util/format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace pyrometer::snapshot {
namespace {

bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::string_view baseName(std::string_view path)
{
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string frameText(const Snapshot &s, FrameId id)
{
    const Frame &f = s.frames[id.value];
    std::string text(s.text(f.name));
    const auto file = baseName(s.text(f.file));
    if (!file.empty() && file != "??") {
        text += ' ';
        text += file;
        if (f.line > 0)
            text += ':' + std::to_string(f.line);
    }
    return text;
}

bool isPython(const Snapshot &s, FrameId id)
{
    return endsWith(s.text(s.frames[id.value].file), ".py");
}

// torch's own Python (nn.Module plumbing, autograd) is not where a user looks first.
bool isTorchInternal(const Snapshot &s, FrameId id)
{
    const auto file = s.text(s.frames[id.value].file);
    return file.find("/torch/") != std::string_view::npos;
}

// The frames every C++ stack of an allocation starts with: the unwinder that took it and the
// allocator's own calls.
bool isAllocatorPlumbing(const Snapshot &s, FrameId id)
{
    const auto name = s.text(s.frames[id.value].name);
    for (const std::string_view prefix :
         {"torch::unwind", "torch::CapturedTraceback", "torch::cuda::", "c10::cuda::", "c10::Allocator",
          "at::detail::empty", "at::empty", "at::native::empty", "at::TensorBase::", "at::TensorIteratorBase::",
          "at::(anonymous namespace)::", "c10::impl::", "at::_ops::empty"})
        if (name.substr(0, prefix.size()) == prefix)
            return true;
    return false;
}

} // namespace

SegmentTotals segmentTotals(const Snapshot &snapshot, int device)
{
    SegmentTotals t;
    for (const Segment &seg : snapshot.segments) {
        if (device >= 0 && seg.device != device)
            continue;
        ++t.segments;
        t.reservedBytes += seg.totalSize;
        t.allocatedBytes += seg.allocatedSize;
        t.activeBytes += seg.activeSize;
        t.requestedBytes += seg.requestedSize;
        t.blocks += seg.blockCount;
        for (std::uint32_t i = 0; i < seg.blockCount; ++i) {
            const Block &b = snapshot.blocks[snapshot.segmentBlocks[seg.firstBlock + i]];
            if (b.state == BlockState::Inactive) {
                t.freeBytes += b.size;
                t.largestFreeBlock = std::max(t.largestFreeBlock, b.size);
            }
        }
    }
    return t;
}

namespace {

// Blocks live before the trace began: an address whose first event frees it, and the segments'
// live blocks at addresses the trace never touches.
std::unordered_map<std::uint64_t, LiveBlock> liveMapBeforeTrace(const Snapshot &snapshot, int device,
                                                                const std::vector<std::uint32_t> &events)
{
    const Events &e = snapshot.events;
    std::unordered_map<std::uint64_t, LiveBlock> live;
    std::unordered_set<std::uint64_t> touched;
    for (const std::uint32_t i : events) {
        const Action a = e.action[i];
        if (a != Action::Alloc && a != Action::FreeCompleted && a != Action::FreeRequested)
            continue;
        if (touched.insert(e.addr[i]).second && a != Action::Alloc)
            live.emplace(e.addr[i], LiveBlock{e.addr[i], e.size[i], e.stack[i], -1});
    }
    for (const Segment &seg : snapshot.segments) {
        if (seg.device != device)
            continue;
        for (std::uint32_t k = 0; k < seg.blockCount; ++k) {
            const Block &b = snapshot.blocks[snapshot.segmentBlocks[seg.firstBlock + k]];
            if ((b.state == BlockState::ActiveAllocated || b.state == BlockState::ActivePendingFree) &&
                !touched.count(b.address))
                live.emplace(b.address, LiveBlock{b.address, b.size, b.stack, -1});
        }
    }
    return live;
}

// Replays the device's allocations over `live` up to position `last`, calling step(position,
// active bytes) after each event. An alloc at a live address replaces it; a free of an address
// not live is ignored: the live set and the curve always agree.
template <typename Step>
void walkLive(const Snapshot &snapshot, const std::vector<std::uint32_t> &events, std::int64_t last,
              std::unordered_map<std::uint64_t, LiveBlock> &live, std::int64_t &active, Step step)
{
    const Events &e = snapshot.events;
    for (std::int64_t p = 0; p <= last; ++p) {
        const std::uint32_t i = events[std::size_t(p)];
        if (e.action[i] == Action::Alloc) {
            auto [it, inserted] = live.try_emplace(e.addr[i]);
            if (!inserted)
                active -= it->second.size;
            it->second = LiveBlock{e.addr[i], e.size[i], e.stack[i], p};
            active += e.size[i];
        } else if (e.action[i] == Action::FreeCompleted) {
            if (const auto it = live.find(e.addr[i]); it != live.end()) {
                active -= it->second.size;
                live.erase(it);
            }
        }
        step(p, active);
    }
}

} // namespace

std::vector<DeviceReplay> replay(const Snapshot &snapshot)
{
    const Events &e = snapshot.events;
    int devices = snapshot.devices;
    for (const Segment &seg : snapshot.segments)
        devices = std::max(devices, seg.device + 1);
    std::vector<DeviceReplay> out(std::size_t(std::max(devices, 0)));
    for (std::size_t d = 0; d < out.size(); ++d)
        out[d].device = int(d);
    for (std::size_t i = 0; i < e.count(); ++i)
        out[e.device[i]].events.push_back(std::uint32_t(i));
    for (DeviceReplay &r : out) {
        const SegmentTotals end = segmentTotals(snapshot, r.device);
        // Reserved memory: segments are never lost from a snapshot, so the curve ends at theirs.
        std::int64_t reserved = 0;
        r.reserved.reserve(r.events.size());
        for (std::size_t p = 0; p < r.events.size(); ++p) {
            const std::uint32_t i = r.events[p];
            switch (e.action[i]) {
            case Action::SegmentAlloc:
            case Action::SegmentMap: reserved += e.size[i]; break;
            case Action::SegmentFree:
            case Action::SegmentUnmap: reserved -= e.size[i]; break;
            case Action::Oom: r.ooms.push_back(p); break;
            default: break;
            }
            r.reserved.push_back(reserved);
        }
        r.reservedAtStart = end.reservedBytes - reserved;
        for (auto &v : r.reserved)
            v += r.reservedAtStart;
        // Active memory: from what was live before the trace, forward.
        auto live = liveMapBeforeTrace(snapshot, r.device, r.events);
        for (const auto &[address, block] : live)
            r.activeAtStart += block.size;
        std::int64_t active = r.activeAtStart;
        r.peakActive = active;
        r.active.reserve(r.events.size());
        walkLive(snapshot, r.events, std::int64_t(r.events.size()) - 1, live, active,
                 [&](std::int64_t p, std::int64_t now) {
                     r.active.push_back(now);
                     if (now > r.peakActive) {
                         r.peakActive = now;
                         r.peakPosition = p;
                     }
                 });
        r.activeAtTraceEnd = active;
        r.activeAtSnapshot = end.activeBytes;
    }
    return out;
}

bool recordingStoppedEarly(const DeviceReplay &device)
{
    const std::int64_t gap = std::abs(device.activeAtTraceEnd - device.activeAtSnapshot);
    const std::int64_t larger = std::max(std::abs(device.activeAtTraceEnd), std::abs(device.activeAtSnapshot));
    return gap >= (std::int64_t(1) << 20) && gap * 100 >= larger;
}

double axisX(const Snapshot &snapshot, const DeviceReplay &device, std::int64_t position)
{
    if (device.events.empty())
        return 0;
    if (!snapshot.hasTimes)
        return double(position + 1);
    if (position < 0)
        return 0;
    const auto &t = snapshot.events.timeUs;
    return double(t[device.events[std::size_t(position)]] - t[device.events.front()]) / 1e3;
}

std::vector<LiveBlock> liveBeforeTrace(const Snapshot &snapshot, const DeviceReplay &device)
{
    return liveAt(snapshot, device, -1);
}

std::vector<LiveBlock> liveAt(const Snapshot &snapshot, const DeviceReplay &device, std::int64_t position)
{
    auto live = liveMapBeforeTrace(snapshot, device.device, device.events);
    std::int64_t active = 0;
    const std::int64_t last = std::min<std::int64_t>(position, std::int64_t(device.events.size()) - 1);
    walkLive(snapshot, device.events, last, live, active, [](std::int64_t, std::int64_t) {});
    std::vector<LiveBlock> out;
    out.reserve(live.size());
    for (const auto &[address, block] : live)
        out.push_back(block);
    std::sort(out.begin(), out.end(), [](const LiveBlock &a, const LiveBlock &b) { return a.address < b.address; });
    return out;
}

std::string foldedStack(const Snapshot &snapshot, StackId stack)
{
    if (!stack.isValid() || snapshot.stackDepth(stack) == 0)
        return "(no stack)";
    const FrameId *frames = snapshot.stackData(stack);
    const std::size_t depth = snapshot.stackDepth(stack);
    bool anyPython = false;
    for (std::size_t i = 0; i < depth && !anyPython; ++i)
        anyPython = isPython(snapshot, frames[i]);
    std::string out;
    for (std::size_t i = depth; i-- > 0;) {
        if (anyPython && !isPython(snapshot, frames[i]))
            continue;
        if (!out.empty())
            out += ';';
        out += frameText(snapshot, frames[i]);
    }
    return out;
}

std::string stackLabel(const Snapshot &snapshot, StackId stack)
{
    if (!stack.isValid() || snapshot.stackDepth(stack) == 0)
        return "(no stack)";
    const FrameId *frames = snapshot.stackData(stack);
    const std::size_t depth = snapshot.stackDepth(stack);
    // The innermost Python frame says what allocated; when that is torch's own code, the
    // innermost frame of the user's says where from ("linear linear.py:116 from forward model.py:40").
    std::size_t python = depth, user = depth;
    for (std::size_t i = 0; i < depth; ++i) {
        if (!isPython(snapshot, frames[i]))
            continue;
        if (python == depth)
            python = i;
        if (!isTorchInternal(snapshot, frames[i])) {
            user = i;
            break;
        }
    }
    if (python == depth) {
        // C++ frames alone: the first that is neither the unwinder nor the allocator (the op
        // that allocated, "at::_ops::div::call"), else the innermost.
        std::size_t op = 0;
        while (op < depth && isAllocatorPlumbing(snapshot, frames[op]))
            ++op;
        std::string text = frameText(snapshot, frames[op < depth ? op : 0]);
        // A C++ name's parameter list says little in a label: "at::native::_to_copy" (the key keeps it).
        if (const auto paren = text.find('('); paren != std::string::npos && paren > 0)
            text.erase(paren);
        return text;
    }
    if (user == python || user == depth)
        return frameText(snapshot, frames[python]);
    return frameText(snapshot, frames[python]) + " from " + frameText(snapshot, frames[user]);
}

namespace {

// The innermost external annotation open at a time on a device, or "".
std::string annotationAt(const Snapshot &snapshot, int device, std::int64_t timeUs)
{
    std::vector<StringId> open;
    for (const Annotation &a : snapshot.annotations) {
        if (a.device != device || a.timeUs > timeUs)
            continue;
        if (a.start) {
            open.push_back(a.name);
        } else {
            const auto it = std::find(open.rbegin(), open.rend(), a.name);
            if (it != open.rend())
                open.erase(std::next(it).base());
        }
    }
    return open.empty() ? std::string() : std::string(snapshot.text(open.back()));
}

} // namespace

namespace {

std::vector<std::string_view> splitFolded(std::string_view key)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= key.size(); ++i)
        if (i == key.size() || key[i] == ';') {
            parts.push_back(key.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

// Stacks that end in the same user frame get the first caller where they part added to their
// label ("einsum _backends.py:291 via forward attn.py:40"), so that no two rows read alike.
void distinguishLabels(std::vector<LiveGroup> &groups)
{
    std::unordered_map<std::string, std::vector<std::size_t>> byLabel;
    for (std::size_t i = 0; i < groups.size(); ++i)
        byLabel[groups[i].label].push_back(i);
    for (auto &[label, rows] : byLabel) {
        if (rows.size() < 2)
            continue;
        std::vector<std::vector<std::string_view>> parts;
        for (const std::size_t r : rows)
            parts.push_back(splitFolded(groups[r].key));
        for (std::size_t k = 0; k < rows.size(); ++k) {
            // Where it parts from the stack of the same label most like it.
            std::size_t differ = 0;
            for (std::size_t other = 0; other < rows.size(); ++other) {
                if (other == k)
                    continue;
                std::size_t d = 0;
                while (d < parts[k].size() && d < parts[other].size() && parts[k][d] == parts[other][d])
                    ++d;
                differ = std::max(differ, d);
            }
            if (differ < parts[k].size()) {
                std::string via(parts[k][differ]);
                if (const auto paren = via.find('('); paren != std::string::npos && paren > 0)
                    via.erase(paren); // a C++ frame's parameter list: in the key, not the label
                groups[rows[k]].label = label + " via " + via;
            }
        }
    }
}

} // namespace

std::string groupKey(const Snapshot &snapshot, const DeviceReplay &device, const LiveBlock &b, GroupBy by)
{
    const Events &e = snapshot.events;
    const bool fromTrace = b.position >= 0;
    const std::uint32_t i = fromTrace ? device.events[std::size_t(b.position)] : 0;
    std::string key;
    switch (by) {
    case GroupBy::Stack: return foldedStack(snapshot, b.stack);
    case GroupBy::Context:
        key = fromTrace ? std::string(snapshot.text(e.compileContext[i])) : std::string();
        if (key.empty() || key == "N/A")
            key = fromTrace ? "(no compile context)" : "(allocated before the trace)";
        return key;
    case GroupBy::Annotation:
        key = fromTrace ? std::string(snapshot.text(e.userMetadata[i])) : std::string();
        if (key.empty() && fromTrace && e.timeUs[i] != Events::kNoTime)
            key = annotationAt(snapshot, device.device, e.timeUs[i]);
        if (key.empty())
            key = fromTrace ? "(no annotation)" : "(allocated before the trace)";
        return key;
    }
    return key;
}

std::vector<LiveGroup> groupLive(const Snapshot &snapshot, const DeviceReplay &device,
                                 const std::vector<LiveBlock> &live, GroupBy by)
{
    std::unordered_map<std::string, LiveGroup> groups;
    std::unordered_map<std::uint32_t, std::pair<std::string, std::string>> stackKeys; // cache per stack
    for (const LiveBlock &b : live) {
        std::string key, label;
        switch (by) {
        case GroupBy::Stack: {
            auto it = stackKeys.find(b.stack.value);
            if (it == stackKeys.end())
                it = stackKeys
                         .emplace(b.stack.value,
                                  std::pair{foldedStack(snapshot, b.stack), stackLabel(snapshot, b.stack)})
                         .first;
            key = it->second.first;
            label = it->second.second;
            break;
        }
        case GroupBy::Context:
        case GroupBy::Annotation:
            key = groupKey(snapshot, device, b, by);
            label = key;
            break;
        }
        LiveGroup &g = groups[key];
        g.key = key;
        g.label = label;
        g.bytes += b.size;
        ++g.blocks;
    }
    std::vector<LiveGroup> out;
    out.reserve(groups.size());
    for (auto &[key, g] : groups)
        out.push_back(std::move(g));
    std::sort(out.begin(), out.end(), [](const LiveGroup &a, const LiveGroup &b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.key < b.key;
    });
    if (by == GroupBy::Stack)
        distinguishLabels(out);
    return out;
}

// Requests of this many bytes or fewer come from the small-block pool (kSmallSize).
constexpr std::int64_t kSmallRequest = std::int64_t(1) << 20;

std::vector<OomReport> oomReports(const Snapshot &snapshot, const std::vector<DeviceReplay> &devices)
{
    const Events &e = snapshot.events;
    std::vector<OomReport> out;
    for (const DeviceReplay &r : devices) {
        for (const std::size_t p : r.ooms) {
            const std::uint32_t i = r.events[p];
            OomReport o;
            o.device = r.device;
            o.position = p;
            o.timeUs = e.timeUs[i];
            o.requestedBytes = e.size[i];
            o.stream = e.stream[i];
            o.deviceFreeBytes = std::int64_t(e.addr[i]);
            o.activeBytes = r.active[p];
            o.reservedBytes = r.reserved[p];
            // The segments describe the OOM's instant when nothing was allocated or reserved after it.
            o.segmentsAtOom =
                std::none_of(r.events.begin() + std::ptrdiff_t(p) + 1, r.events.end(), [&](std::uint32_t k) {
                    return e.action[k] == Action::Alloc || e.action[k] == Action::SegmentAlloc ||
                           e.action[k] == Action::SegmentMap;
                });
            // What the allocator held then: the segments with later segment events undone, and
            // the live blocks in them (at the snapshot's instant, its own blocks say the same).
            const SegmentsAt then = segmentsAt(snapshot, r, std::int64_t(p));
            o.cachedFreeBytes = then.freeBytes;
            o.largestFreeBlock = then.largestFree;
            const bool smallRequest = o.requestedBytes <= kSmallRequest;
            std::vector<std::uint64_t> streams;
            for (const SegmentAt &seg : then.segments) {
                if (std::find(streams.begin(), streams.end(), seg.stream) == streams.end())
                    streams.push_back(seg.stream);
                if (seg.stream != o.stream || seg.small != smallRequest)
                    continue;
                o.usableFreeBytes += seg.size - seg.allocated;
                o.usableLargestFree = std::max(o.usableLargestFree, seg.largestFree);
            }
            o.streams = streams.size();
            const auto bytes = [](std::int64_t b) { return formatBytes(std::uint64_t(std::max<std::int64_t>(0, b))); };
            const std::string want = bytes(o.requestedBytes);
            const std::string stream = o.streams > 1 ? " stream " + std::to_string(o.stream) : std::string();
            if (o.usableFreeBytes >= o.requestedBytes && o.usableLargestFree < o.requestedBytes)
                o.verdict = "fragmentation: " + bytes(o.usableFreeBytes) + " lay free in the allocator's segments" +
                            (stream.empty() ? "" : " of" + stream) + " but the largest piece was " +
                            bytes(o.usableLargestFree) + ", less than the " + want +
                            " asked; expandable_segments:True in PYTORCH_CUDA_ALLOC_CONF lets segments grow instead";
            else if (o.cachedFreeBytes >= o.requestedBytes && o.usableFreeBytes < o.requestedBytes)
                o.verdict = "cached for others: " + bytes(o.cachedFreeBytes) +
                            " lay free in the allocator's segments, but only " + bytes(o.usableFreeBytes) +
                            " in those that could serve " + want + (stream.empty() ? "" : " on" + stream) +
                            (smallRequest ? " (the small-block pool's)" : " (the large-block pool's)") +
                            "; a cached piece serves only its stream and pool, and a segment holding a live block "
                            "cannot go back to the device: free what the other streams hold, or allocate their "
                            "tensors on this one";
            else
                o.verdict = "out of memory: " + want + " asked with " +
                            formatBytes(std::uint64_t(std::max<std::int64_t>(0, o.deviceFreeBytes))) +
                            " free on the device and " +
                            formatBytes(std::uint64_t(std::max<std::int64_t>(0, o.activeBytes))) +
                            " held by live tensors; free or shrink what the top stacks hold";
            out.push_back(std::move(o));
        }
    }
    return out;
}

std::optional<std::int64_t> resolveInstant(const Snapshot &snapshot, const DeviceReplay &device, const std::string &at,
                                           std::string &error)
{
    const std::int64_t n = std::int64_t(device.events.size());
    if (at.empty() || at == "peak")
        return device.peakPosition;
    if (at == "start")
        return -1;
    if (at == "end")
        return n - 1;
    if (at.rfind("oom", 0) == 0) {
        std::size_t which = 1;
        if (at.size() > 4 && at[3] == ':') {
            const auto r = std::from_chars(at.data() + 4, at.data() + at.size(), which);
            if (r.ec != std::errc() || r.ptr != at.data() + at.size() || which == 0) {
                error = "\"" + at + "\" names no OOM: use oom or oom:N (N from 1)";
                return std::nullopt;
            }
        } else if (at != "oom") {
            error = "\"" + at + "\" is not an instant";
            return std::nullopt;
        }
        if (which > device.ooms.size()) {
            error = device.ooms.empty()
                        ? "the snapshot records no OOM on device " + std::to_string(device.device)
                        : "the snapshot records " + std::to_string(device.ooms.size()) + " OOMs on device " +
                              std::to_string(device.device) + ", not " + std::to_string(which);
            return std::nullopt;
        }
        return std::int64_t(device.ooms[which - 1]);
    }
    if (at[0] == '#') {
        std::int64_t index = 0;
        const auto r = std::from_chars(at.data() + 1, at.data() + at.size(), index);
        if (r.ec != std::errc() || r.ptr != at.data() + at.size() || index < 0 || index >= n) {
            error = "\"" + at + "\" is not an event of the device's " + std::to_string(n);
            return std::nullopt;
        }
        return index;
    }
    double value = 0;
    const auto r = std::from_chars(at.data(), at.data() + at.size(), value);
    const std::string unit(r.ptr, at.data() + at.size());
    const double scale = unit.empty() || unit == "us" ? 1 : unit == "ms" ? 1e3 : unit == "s" ? 1e6 : 0;
    if (r.ec != std::errc() || scale == 0 || !std::isfinite(value) || value < 0) {
        error = "\"" + at + "\" is not an instant: use peak, oom, oom:N, start, end, #EVENT or a time such as 250ms";
        return std::nullopt;
    }
    if (!snapshot.hasTimes || n == 0) {
        error = "the snapshot's events have no times (an older torch): name an event with #N";
        return std::nullopt;
    }
    const Events &e = snapshot.events;
    const std::int64_t t = e.timeUs[device.events.front()] + std::int64_t(std::llround(value * scale));
    // The last event at or before t.
    const auto it = std::upper_bound(device.events.begin(), device.events.end(), t,
                                     [&](std::int64_t time, std::uint32_t i) { return time < e.timeUs[i]; });
    return std::int64_t(it - device.events.begin()) - 1;
}

std::vector<GroupDelta> diffGroups(const std::vector<LiveGroup> &base, const std::vector<LiveGroup> &other)
{
    std::map<std::string, GroupDelta> byKey;
    for (const LiveGroup &g : base) {
        auto &d = byKey[g.key];
        d.key = g.key;
        d.label = g.label;
        d.baseBytes += g.bytes;
    }
    for (const LiveGroup &g : other) {
        auto &d = byKey[g.key];
        d.key = g.key;
        d.label = g.label;
        d.otherBytes += g.bytes;
    }
    std::vector<GroupDelta> out;
    for (auto &[key, d] : byKey)
        out.push_back(std::move(d));
    std::stable_sort(out.begin(), out.end(),
                     [](const GroupDelta &a, const GroupDelta &b) { return a.delta() > b.delta(); });
    return out;
}

} // namespace pyrometer::snapshot
