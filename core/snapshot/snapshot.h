#pragma once

#include "core/trace/stringpool.h"
#include "core/util/strongid.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace pyrometer::snapshot {

using trace::StringId;

struct FrameTag {};
struct StackTag {};
// A distinct (name, file, line) in Snapshot::frames.
using FrameId = StrongId<FrameTag>;
// A distinct call stack (innermost frame first) in Snapshot::stacks.
using StackId = StrongId<StackTag>;

struct Frame {
    StringId name;
    StringId file;
    std::int64_t line = 0;
    bool operator==(const Frame &) const = default;
};

// What an allocator trace entry did (torch's TraceEntry::Action).
enum class Action : std::uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Other,
};
const char *actionName(Action action);

// The allocator's trace entries of every device, as columns, in the file's order (each device's
// in its own time order). An OOM's addr column holds the device's free bytes it reported.
struct Events {
    std::vector<Action> action;
    std::vector<std::uint16_t> device;
    std::vector<std::uint64_t> addr;
    std::vector<std::int64_t> size;
    std::vector<std::uint64_t> stream;
    std::vector<std::int64_t> timeUs; // kNoTime in snapshots older than time_us
    std::vector<StackId> stack;
    std::vector<StringId> compileContext;
    std::vector<StringId> userMetadata;

    static constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();
    std::size_t count() const { return action.size(); }
};

enum class BlockState : std::uint8_t { ActiveAllocated, ActivePendingFree, Inactive, Other };

struct Block {
    std::uint64_t address = 0;
    std::int64_t size = 0;
    std::int64_t requestedSize = 0;
    BlockState state = BlockState::Other;
    StackId stack;
};

// A segment the allocator reserved from the driver, with its blocks, at the snapshot's instant.
struct Segment {
    int device = 0;
    std::uint64_t address = 0;
    std::int64_t totalSize = 0;
    std::int64_t allocatedSize = 0;
    std::int64_t activeSize = 0;
    std::int64_t requestedSize = 0;
    std::uint64_t stream = 0;
    StringId type; // "large" or "small"
    bool expandable = false;
    std::uint32_t firstBlock = 0; // in Snapshot::segmentBlocks
    std::uint32_t blockCount = 0;
};

// A range the user or torch marked (external_annotations: START and END of a name).
struct Annotation {
    int device = 0;
    StringId name;
    bool start = true;
    std::int64_t timeUs = 0;
};

// One allocator snapshot, columnar: what torch.cuda.memory._dump_snapshot wrote.
struct Snapshot {
    trace::StringPool strings;
    std::vector<Frame> frames;
    // Stack s is frames stackFrames[stackBegin[s] .. stackBegin[s + 1]), innermost first.
    std::vector<FrameId> stackFrames;
    std::vector<std::uint32_t> stackBegin = {0};
    std::vector<Segment> segments;
    std::vector<Block> blocks;
    std::vector<std::uint32_t> segmentBlocks; // indices into blocks, per segment
    Events events;
    std::vector<Annotation> annotations;
    // allocator_settings, each as its text ("expandable_segments" -> "True")
    std::vector<std::pair<std::string, std::string>> settings;
    int devices = 0; // device_traces' length
    int protocol = 0;
    bool hasTimes = false; // every event has time_us

    std::size_t stackCount() const { return stackBegin.size() - 1; }
    std::size_t stackDepth(StackId s) const { return stackBegin[s.value + 1] - stackBegin[s.value]; }
    const FrameId *stackData(StackId s) const { return stackFrames.data() + stackBegin[s.value]; }
    std::string_view text(StringId id) const { return strings.view(id); }
};

} // namespace pyrometer::snapshot
