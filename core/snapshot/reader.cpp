#include "core/snapshot/reader.h"

#include "core/snapshot/pickle.h"
#include "core/snapshot/sources.h"
#include "core/trace/byteinput.h"
#include "core/util/heap.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <unordered_map>

namespace pyrometer::snapshot {
namespace {

using Kind = PickleMachine::ContainerKind;
using Tag = Value::Tag;

// Rows the reader makes of dicts (Value::row kinds).
enum RowKind : unsigned { kEventRow = 1, kFrameRow, kStackRow, kBlockRow, kSegmentRow };

// The keys a snapshot's dicts use, interned first so that a key is found by its id alone.
enum Key : std::uint32_t {
    kAction = 1,
    kAddr,
    kSize,
    kStream,
    kTimeUs,
    kFrames,
    kCompileContext,
    kUserMetadata,
    kDeviceFree,
    kFilename,
    kName,
    kLine,
    kState,
    kRequestedSize,
    kAddress,
    kTotalSize,
    kAllocatedSize,
    kActiveSize,
    kDevice,
    kSegmentType,
    kIsExpandable,
    kBlocks,
    kStage,
    kSegments,
    kDeviceTraces,
    kAllocatorSettings,
    kExternalAnnotations,
    // action and state names
    kAlloc,
    kFreeRequested,
    kFreeCompleted,
    kSegmentAlloc,
    kSegmentFree,
    kSegmentMap,
    kSegmentUnmap,
    kSnapshotAction,
    kOom,
    kActiveAllocated,
    kActivePendingFree,
    kInactive,
    kStart,
    kKeyCount
};
constexpr std::array<const char *, kKeyCount> kKeyNames = {
    "",
    "action",
    "addr",
    "size",
    "stream",
    "time_us",
    "frames",
    "compile_context",
    "user_metadata",
    "device_free",
    "filename",
    "name",
    "line",
    "state",
    "requested_size",
    "address",
    "total_size",
    "allocated_size",
    "active_size",
    "device",
    "segment_type",
    "is_expandable",
    "blocks",
    "stage",
    "segments",
    "device_traces",
    "allocator_settings",
    "external_annotations",
    "alloc",
    "free_requested",
    "free_completed",
    "segment_alloc",
    "segment_free",
    "segment_map",
    "segment_unmap",
    "snapshot",
    "oom",
    "active_allocated",
    "active_pending_free",
    "inactive",
    "START",
};

struct Cancelled {};

struct StackKeyHash {
    std::size_t operator()(std::uint64_t h) const noexcept { return h; }
};

// Turns the pickle's dicts into the snapshot's rows as the machine completes them.
class Builder final : public PickleHooks {
public:
    Builder(Snapshot &snapshot, std::function<void(std::uint64_t)> onProgress)
        : m_s(snapshot), m_onProgress(std::move(onProgress))
    {
        for (std::uint32_t k = 1; k < kKeyCount; ++k)
            (void)m_s.strings.intern(kKeyNames[k]); // ids 1.. in Key order (0 is the empty string)
    }

    void reserve(std::size_t events)
    {
        auto &e = m_s.events;
        e.action.reserve(events), e.addr.reserve(events), e.size.reserve(events), e.stream.reserve(events),
            e.timeUs.reserve(events), e.stack.reserve(events), e.compileContext.reserve(events),
            e.userMetadata.reserve(events);
    }

    void progress(std::uint64_t bytesRead) override
    {
        if (m_onProgress)
            m_onProgress(bytesRead);
    }

    std::optional<Value> dictFilled(PickleMachine &m, Value dict) override
    {
        const auto &kv = m.items(dict);
        m_fields.fill(Value());
        m_present = 0;
        for (std::size_t i = 0; i + 1 < kv.size(); i += 2) {
            const Value k = kv[i];
            if (k.is(Tag::Str) && k.payload() < kBlocks + 1) {
                m_fields[k.payload()] = kv[i + 1];
                m_present |= std::uint64_t(1) << k.payload();
            }
        }
        if (has(kAction))
            return event(m);
        if (has(kFilename) && has(kName))
            return frame(m);
        if (has(kState) && has(kSize))
            return block(m);
        if (has(kBlocks) || has(kTotalSize))
            return segment(m);
        return std::nullopt;
    }

    // What is left once the pickle is read: segments in list order, the events' devices, the
    // settings and annotations.
    void finish(PickleMachine &m, Value top)
    {
        Value segmentsList, traces;
        if (m.isContainer(top, Kind::List)) { // the oldest form: the segments alone
            segmentsList = top;
        } else if (m.isContainer(top, Kind::Dict)) {
            const auto segments = m.get(top, trace::StringId(kSegments));
            const auto deviceTraces = m.get(top, trace::StringId(kDeviceTraces));
            if (!segments && !deviceTraces)
                throw PickleError(
                    "not a CUDA allocator snapshot: its dict has neither \"segments\" nor \"device_traces\"");
            if (segments)
                segmentsList = *segments;
            if (deviceTraces)
                traces = *deviceTraces;
            if (const auto settings = m.get(top, trace::StringId(kAllocatorSettings)))
                readSettings(m, *settings);
            if (const auto annotations = m.get(top, trace::StringId(kExternalAnnotations)))
                readAnnotations(m, *annotations);
        } else {
            throw PickleError("not a CUDA allocator snapshot: the pickle holds no dict of segments and traces");
        }
        if (segmentsList != Value()) {
            if (!m.isContainer(segmentsList, Kind::List))
                throw PickleError("\"segments\" is not a list");
            std::vector<Segment> ordered;
            for (const Value v : m.items(segmentsList)) {
                if (!v.is(Tag::Row) || v.rowKind() != kSegmentRow)
                    throw PickleError("an item of \"segments\" is not a segment");
                ordered.push_back(m_s.segments[v.rowIndex()]);
            }
            m_s.segments = std::move(ordered);
        } else {
            m_s.segments.clear();
        }
        readTraces(m, traces);
    }

private:
    bool has(Key k) const { return m_present & (std::uint64_t(1) << k); }
    Value field(Key k) const { return m_fields[k]; }

    // A size in bytes: none past 4 TiB (no device's memory comes near), so that the sums of
    // millions of them stay far from overflowing. An OOM's request may be anything a bad shape asked.
    std::int64_t bytes(PickleMachine &m, Key k, const char *what, bool request = false) const
    {
        const std::int64_t v = integer(m, k, what);
        constexpr std::int64_t kMaxBytes = std::int64_t(1) << 42;
        if (v < 0 || (!request && v > kMaxBytes))
            throw PickleError(std::string(what) + "'s \"" + kKeyNames[k] + "\" (" + std::to_string(v) +
                              ") is not a size in bytes");
        return v;
    }

    std::int64_t integer(PickleMachine &m, Key k, const char *what) const
    {
        if (!has(k))
            return 0;
        const Value v = field(k);
        if (v.is(Tag::Int) || v.is(Tag::BigInt) || v.is(Tag::Bool))
            return m.intValue(v);
        if (v.is(Tag::None))
            return 0;
        if (v.is(Tag::Float)) { // an int past 64 bits, kept as the nearest double
            const double d = m.floatValue(v);
            return d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : std::int64_t(d);
        }
        throw PickleError(std::string(what) + "'s \"" + kKeyNames[k] + "\" is not an integer");
    }
    StringId text(Key k, const char *what) const
    {
        if (!has(k) || field(k).is(Tag::None))
            return trace::StringPool::kEmpty;
        const Value v = field(k);
        if (!v.is(Tag::Str) && !v.is(Tag::Bytes))
            throw PickleError(std::string(what) + "'s \"" + kKeyNames[k] + "\" is not a string");
        return v.strId();
    }

    StackId stackOf(PickleMachine &m, const char *what)
    {
        if (!has(kFrames))
            return internStack(nullptr, 0, what);
        const Value v = field(kFrames);
        if (v.is(Tag::Row) && v.rowKind() == kStackRow)
            return StackId(std::uint32_t(v.rowIndex())); // the same list met before
        if (!m.isContainer(v, Kind::List) && !m.isContainer(v, Kind::Tuple))
            throw PickleError(std::string(what) + "'s \"frames\" is not a list");
        const auto &items = m.items(v);
        const StackId id = internStack(items.data(), items.size(), what);
        m.release(v, Value::row(kStackRow, id.value));
        return id;
    }

    // Stacks by content in an open-addressed table of stack ids (a few hundred distinct stacks
    // against millions of events: every lookup is a hit after the first few).
    StackId internStack(const Value *frames, std::size_t count, const char *what)
    {
        // Check and hash in one pass, two lanes apart so that the multiplies overlap.
        const Value frameRow = Value::row(kFrameRow, 0);
        constexpr std::uint64_t kKindMask = ~((std::uint64_t(1) << 52) - 1);
        std::uint64_t h0 = 0x9E3779B97F4A7C15ull ^ count, h1 = 0xC2B2AE3D27D4EB4Full;
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint64_t bits = std::bit_cast<std::uint64_t>(frames[i]);
            if ((bits & kKindMask) != std::bit_cast<std::uint64_t>(frameRow))
                throw PickleError(std::string(what) + " has a frame that is not a dict of filename, name and line");
            if (i & 1)
                h1 = (h1 ^ bits) * 0x100000001B3ull;
            else
                h0 = (h0 ^ bits) * 0x100000001B3ull;
        }
        std::uint64_t h = h0 ^ (h1 * 0x9E3779B97F4A7C15ull);
        h ^= h >> 29;
        auto sameFrames = [&](StackId s) {
            if (m_s.stackDepth(s) != count)
                return false;
            const FrameId *stored = m_s.stackData(s);
            for (std::size_t i = 0; i < count; ++i)
                if (stored[i].value != frames[i].rowIndex())
                    return false;
            return true;
        };
        if (m_stackTable.empty())
            m_stackTable.assign(1024, UINT32_MAX);
        const std::size_t mask = m_stackTable.size() - 1;
        for (std::size_t slot = h & mask;; slot = (slot + 1) & mask) {
            const std::uint32_t candidate = m_stackTable[slot];
            if (candidate == UINT32_MAX)
                break;
            if (m_stackHash[candidate] == h && sameFrames(StackId(candidate)))
                return StackId(candidate);
        }
        const StackId s(std::uint32_t(m_s.stackCount()));
        for (std::size_t i = 0; i < count; ++i)
            m_s.stackFrames.push_back(FrameId(std::uint32_t(frames[i].rowIndex())));
        m_s.stackBegin.push_back(std::uint32_t(m_s.stackFrames.size()));
        m_stackHash.push_back(h);
        if (m_stackHash.size() * 2 > m_stackTable.size()) { // keep it at most half full
            m_stackTable.assign(m_stackTable.size() * 2, UINT32_MAX);
            for (std::uint32_t k = 0; k < m_stackHash.size(); ++k)
                for (std::size_t slot = m_stackHash[k] & (m_stackTable.size() - 1);;
                     slot = (slot + 1) & (m_stackTable.size() - 1))
                    if (m_stackTable[slot] == UINT32_MAX) {
                        m_stackTable[slot] = k;
                        break;
                    }
        } else {
            for (std::size_t slot = h & mask;; slot = (slot + 1) & mask)
                if (m_stackTable[slot] == UINT32_MAX) {
                    m_stackTable[slot] = s.value;
                    break;
                }
        }
        return s;
    }

    Value frame(PickleMachine &m)
    {
        const Frame f{text(kName, "a frame"), text(kFilename, "a frame"), integer(m, kLine, "a frame")};
        const std::uint64_t key =
            (std::uint64_t(f.name.value) << 40) ^ (std::uint64_t(f.file.value) << 20) ^ std::uint64_t(f.line);
        auto [lo, hi] = m_frameIndex.equal_range(key);
        for (auto it = lo; it != hi; ++it)
            if (m_s.frames[it->second] == f)
                return Value::row(kFrameRow, it->second);
        m_s.frames.push_back(f);
        m_frameIndex.emplace(key, std::uint32_t(m_s.frames.size() - 1));
        return Value::row(kFrameRow, m_s.frames.size() - 1);
    }

    Action actionOf() const
    {
        const Value v = field(kAction);
        if (!v.is(Tag::Str))
            throw PickleError("an event's \"action\" is not a string");
        switch (v.payload()) {
        case kAlloc: return Action::Alloc;
        case kFreeRequested: return Action::FreeRequested;
        case kFreeCompleted: return Action::FreeCompleted;
        case kSegmentAlloc: return Action::SegmentAlloc;
        case kSegmentFree: return Action::SegmentFree;
        case kSegmentMap: return Action::SegmentMap;
        case kSegmentUnmap: return Action::SegmentUnmap;
        case kSnapshotAction: return Action::Snapshot;
        case kOom: return Action::Oom;
        default: return Action::Other;
        }
    }

    Value event(PickleMachine &m)
    {
        auto &e = m_s.events;
        const Action action = actionOf();
        e.action.push_back(action);
        const Key addrKey = action == Action::Oom && has(kDeviceFree) ? kDeviceFree : kAddr;
        e.addr.push_back(std::uint64_t(integer(m, addrKey, "an event")));
        e.size.push_back(bytes(m, kSize, "an event", action == Action::Oom));
        e.stream.push_back(std::uint64_t(integer(m, kStream, "an event")));
        if (has(kTimeUs)) {
            e.timeUs.push_back(integer(m, kTimeUs, "an event"));
        } else {
            e.timeUs.push_back(Events::kNoTime);
        }
        e.stack.push_back(stackOf(m, "an event"));
        e.compileContext.push_back(text(kCompileContext, "an event"));
        e.userMetadata.push_back(text(kUserMetadata, "an event"));
        if (e.action.size() >= (std::size_t(1) << 32))
            throw PickleError("more events than a snapshot can hold");
        return Value::row(kEventRow, e.action.size() - 1);
    }

    BlockState stateOf() const
    {
        const Value v = field(kState);
        if (!v.is(Tag::Str))
            throw PickleError("a block's \"state\" is not a string");
        switch (v.payload()) {
        case kActiveAllocated: return BlockState::ActiveAllocated;
        case kActivePendingFree: return BlockState::ActivePendingFree;
        case kInactive: return BlockState::Inactive;
        default: return BlockState::Other;
        }
    }

    Value block(PickleMachine &m)
    {
        Block b;
        b.address = std::uint64_t(integer(m, kAddress, "a block"));
        b.size = bytes(m, kSize, "a block");
        b.requestedSize = has(kRequestedSize) ? bytes(m, kRequestedSize, "a block") : b.size;
        b.state = stateOf();
        b.stack = stackOf(m, "a block");
        m_s.blocks.push_back(b);
        return Value::row(kBlockRow, m_s.blocks.size() - 1);
    }

    Value segment(PickleMachine &m)
    {
        Segment s;
        s.device = int(integer(m, kDevice, "a segment"));
        s.address = std::uint64_t(integer(m, kAddress, "a segment"));
        s.totalSize = bytes(m, kTotalSize, "a segment");
        s.stream = std::uint64_t(integer(m, kStream, "a segment"));
        s.type = text(kSegmentType, "a segment");
        s.expandable = has(kIsExpandable) && m.intValue(field(kIsExpandable)) != 0;
        s.firstBlock = std::uint32_t(m_s.segmentBlocks.size());
        std::int64_t allocated = 0, active = 0, requested = 0;
        if (has(kBlocks)) {
            const Value list = field(kBlocks);
            if (!m.isContainer(list, Kind::List))
                throw PickleError("a segment's \"blocks\" is not a list");
            for (const Value b : m.items(list)) {
                if (!b.is(Tag::Row) || b.rowKind() != kBlockRow)
                    throw PickleError("a segment has a block that is not a dict of size and state");
                const Block &block = m_s.blocks[b.rowIndex()];
                m_s.segmentBlocks.push_back(std::uint32_t(b.rowIndex()));
                if (block.state == BlockState::ActiveAllocated) {
                    allocated += block.size;
                    requested += block.requestedSize;
                }
                if (block.state == BlockState::ActiveAllocated || block.state == BlockState::ActivePendingFree)
                    active += block.size;
            }
            m.release(list, Value::none());
        }
        s.blockCount = std::uint32_t(m_s.segmentBlocks.size() - s.firstBlock);
        // Older snapshots lack the sums; they are the blocks' then.
        s.allocatedSize = has(kAllocatedSize) ? bytes(m, kAllocatedSize, "a segment") : allocated;
        s.activeSize = has(kActiveSize) ? bytes(m, kActiveSize, "a segment") : active;
        s.requestedSize = has(kRequestedSize) ? bytes(m, kRequestedSize, "a segment") : requested;
        m_s.segments.push_back(s);
        return Value::row(kSegmentRow, m_s.segments.size() - 1);
    }

    std::string valueText(PickleMachine &m, Value v) const
    {
        switch (v.tag()) {
        case Tag::None: return "None";
        case Tag::Bool: return v.payload() ? "True" : "False";
        case Tag::Int:
        case Tag::BigInt: return std::to_string(m.intValue(v));
        case Tag::Float: {
            std::string t = std::to_string(m.floatValue(v));
            t.erase(t.find_last_not_of('0') + 1);
            if (!t.empty() && t.back() == '.')
                t += '0';
            return t;
        }
        case Tag::Str:
        case Tag::Bytes: return std::string(m_s.text(v.strId()));
        case Tag::Container: return m.isContainer(v, Kind::Dict) ? "{…}" : "[…]";
        default: return "?";
        }
    }

    void readSettings(PickleMachine &m, Value settings)
    {
        if (!m.isContainer(settings, Kind::Dict))
            return;
        const auto &kv = m.items(settings);
        for (std::size_t i = 0; i + 1 < kv.size(); i += 2)
            m_s.settings.emplace_back(valueText(m, kv[i]), valueText(m, kv[i + 1]));
    }

    void readAnnotations(PickleMachine &m, Value list)
    {
        if (!m.isContainer(list, Kind::List))
            return;
        const StringId stage(kStage), name(kName), device(kDevice), time(kTimeUs);
        for (const Value a : m.items(list)) {
            if (!m.isContainer(a, Kind::Dict))
                continue;
            Annotation note;
            if (const auto v = m.get(a, stage))
                note.start = v->is(Tag::Str) && v->payload() == kStart;
            if (const auto v = m.get(a, name); v && v->is(Tag::Str))
                note.name = v->strId();
            if (const auto v = m.get(a, device))
                note.device = int(m.intValue(*v));
            if (const auto v = m.get(a, time))
                note.timeUs = m.intValue(*v);
            m_s.annotations.push_back(note);
        }
    }

    // device_traces: one list of events per device. Events are put in that order (the file's,
    // unless a crafted pickle shares or hides one).
    void readTraces(PickleMachine &m, Value traces)
    {
        const std::size_t made = m_s.events.count();
        std::vector<std::uint32_t> order;
        std::vector<std::uint16_t> devices;
        if (traces != Value()) {
            if (!m.isContainer(traces, Kind::List))
                throw PickleError("\"device_traces\" is not a list");
            const auto &perDevice = m.items(traces);
            if (perDevice.size() > 65535)
                throw PickleError("\"device_traces\" lists more devices than a machine has");
            m_s.devices = int(perDevice.size());
            order.reserve(made);
            for (std::size_t d = 0; d < perDevice.size(); ++d) {
                if (!m.isContainer(perDevice[d], Kind::List))
                    throw PickleError("a device's trace is not a list");
                for (const Value v : m.items(perDevice[d])) {
                    if (!v.is(Tag::Row) || v.rowKind() != kEventRow)
                        throw PickleError("an item of a device's trace is not an event");
                    order.push_back(std::uint32_t(v.rowIndex()));
                    devices.push_back(std::uint16_t(d));
                }
            }
        }
        bool identity = order.size() == made;
        for (std::size_t i = 0; identity && i < order.size(); ++i)
            identity = order[i] == i;
        auto &e = m_s.events;
        if (!identity) {
            auto gather = [&](auto &column) {
                std::remove_reference_t<decltype(column)> out;
                out.reserve(order.size());
                for (const auto i : order)
                    out.push_back(column[i]);
                column = std::move(out);
            };
            gather(e.action), gather(e.addr), gather(e.size), gather(e.stream), gather(e.timeUs), gather(e.stack),
                gather(e.compileContext), gather(e.userMetadata);
        }
        e.device = std::move(devices);
        m_s.hasTimes = !e.timeUs.empty() &&
                       std::none_of(e.timeUs.begin(), e.timeUs.end(), [](auto t) { return t == Events::kNoTime; });
    }

    Snapshot &m_s;
    std::function<void(std::uint64_t)> m_onProgress;
    std::array<Value, kBlocks + 1> m_fields{};
    std::uint64_t m_present = 0;
    std::vector<std::uint32_t> m_stackTable; // stack ids by hash, UINT32_MAX where empty
    std::vector<std::uint64_t> m_stackHash;  // per stack
    std::unordered_multimap<std::uint64_t, std::uint32_t, StackKeyHash> m_frameIndex;
};

Result<std::shared_ptr<const Snapshot>> run(PickleSource &source, std::string_view name,
                                            std::function<void(std::uint64_t)> onProgress, std::uint64_t expectedBytes)
{
    auto snapshot = std::make_shared<Snapshot>();
    try {
        Builder builder(*snapshot, std::move(onProgress));
        PickleMachine machine(snapshot->strings);
        // torch's snapshots take 150 bytes or more an event, with two memo entries: columns and
        // memo reserved from that need no copy as they grow, and pages never written cost nothing.
        if (expectedBytes > (std::uint64_t(1) << 24)) {
            builder.reserve(std::size_t(expectedBytes / 150));
            machine.reserve(std::size_t(expectedBytes / 60));
        }
        const Value top = machine.run(source, builder);
        builder.finish(machine, top);
        snapshot->protocol = machine.protocol();
    } catch (const PickleError &e) {
        return Error{std::string(name) + ": " + e.what()};
    } catch (const Cancelled &) {
        return Error{std::string(name) + ": reading the snapshot cancelled"};
    } catch (const std::bad_alloc &) {
        return Error{std::string(name) + ": not enough memory to read the snapshot"};
    }
    return std::shared_ptr<const Snapshot>(std::move(snapshot));
}

} // namespace

const char *actionName(Action action)
{
    switch (action) {
    case Action::Alloc: return "alloc";
    case Action::FreeRequested: return "free_requested";
    case Action::FreeCompleted: return "free_completed";
    case Action::SegmentAlloc: return "segment_alloc";
    case Action::SegmentFree: return "segment_free";
    case Action::SegmentMap: return "segment_map";
    case Action::SegmentUnmap: return "segment_unmap";
    case Action::Snapshot: return "snapshot";
    case Action::Oom: return "oom";
    case Action::Other: break;
    }
    return "other";
}

Result<std::shared_ptr<const Snapshot>> loadSnapshot(const std::filesystem::path &file, ProgressReporter &progress,
                                                     const StopToken &stop)
{
    auto input = trace::ByteInput::open(file);
    if (!input)
        return input.error();
    auto &in = *input.value();
    const std::uint64_t total = in.fileSize();
    const bool gzipped = in.gzipped();
    std::unique_ptr<PickleSource> source;
    InflatingSource *inflating = nullptr;
    if (gzipped)
        source.reset(inflating = new InflatingSource(in));
    else
        source = std::make_unique<FileSource>(in);
    auto result = run(
        *source, file.string(),
        [&](std::uint64_t pickleBytes) {
            if (stop.stopRequested())
                throw Cancelled{};
            // A mapped file is read as the pickle goes; a gzip one as it is inflated.
            progress.report(inflating ? inflating->fileBytesRead() : pickleBytes, total);
        },
        gzipped ? total * 8 : total);
    source.reset(); // the inflating thread stops before the input goes
    // The machine's memo and slots are gone: their pages go back to the system. (This also
    // links heap.cpp's operator new, which puts the columns on huge pages: a fault per 2 MiB.)
    releaseFreedMemory();
    if (result)
        progress.finish();
    return result;
}

Result<std::shared_ptr<const Snapshot>> loadSnapshot(const std::filesystem::path &file)
{
    ProgressReporter progress;
    return loadSnapshot(file, progress, StopToken());
}

Result<std::shared_ptr<const Snapshot>> readSnapshot(std::string_view bytes, std::string_view name)
{
    MemorySource source(bytes);
    return run(source, name, {}, bytes.size());
}

bool looksLikeSnapshot(const std::filesystem::path &file)
{
    std::ifstream in(file, std::ios::binary);
    unsigned char head[2] = {0, 0};
    in.read(reinterpret_cast<char *>(head), 2);
    if (in.gcount() < 2)
        return false;
    if (head[0] == 0x80 && head[1] >= 2 && head[1] <= 5)
        return true;
    if (head[0] == 0x1f && head[1] == 0x8b) { // a gzip stream: a snapshot when its name says so
        const auto name = file.filename().string();
        return name.find(".pickle") != std::string::npos || name.find(".pkl") != std::string::npos;
    }
    return false;
}

} // namespace pyrometer::snapshot
