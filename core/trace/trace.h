#pragma once

#include "core/trace/ids.h"
#include "core/trace/stringpool.h"

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::trace {

// A pid or tid as written in the file: a number, or a string such as "stream 7" or "Spans".
struct EntityId {
    std::int64_t number = 0;
    StringId text; // valid when the file wrote a string
    bool isText() const { return text.isValid(); }
    bool operator==(const EntityId &) const = default;
};

// What a slice on a track came from.
enum class SliceKind : std::uint8_t {
    Complete,   // ph X
    BeginEnd,   // ph B with its matching E
    Unfinished, // ph B without an E: duration 0, kept so it can be shown
    Instant,    // ph i/I scoped to the thread (not [memory]): duration 0
};

// The args that views need without re-reading the file. -1 / invalid when absent.
struct EventArgs {
    std::int64_t correlation = -1;
    std::int64_t externalId = -1;
    std::int32_t device = -1;
    std::int32_t stream = -1;
    // "graph id": the CUDA graph a replayed device event belongs to; 0 (eager) or -1 (absent)
    // otherwise. Graph kernels carry the correlation id of the cudaGraphLaunch that replayed them.
    std::int32_t graphId = -1;
    StringId inputDims;  // raw JSON text of "Input Dims" / "Input dims", e.g. [[1, 3], []]
    StringId inputTypes; // raw JSON text of "Input type"
    // Raw JSON text of "Concrete Inputs" (torch 2.x): the values of scalar and list arguments,
    // ["", "", "[2, 2]", "False"]; what a convolution's stride or a sum's dims were.
    StringId concreteInputs;
    bool operator==(const EventArgs &) const = default;
};

// One track's events in columns, sorted by start (then longest first). Nesting is per lane:
// events that overlap without nesting (GPU kernels on one stream) go on extra lanes.
struct Track {
    TrackId id;
    ProcessId process;
    EntityId tid;
    std::string name;    // display name: thread_name metadata, else derived from tid
    std::int64_t sortIndex = 0;
    int laneCount = 0;

    std::vector<std::int64_t> start;    // ns
    std::vector<std::int64_t> duration; // ns, >= 0
    std::vector<StringId> eventName;
    std::vector<StringId> category;
    std::vector<SliceKind> kind;
    std::vector<std::uint16_t> lane;
    std::vector<std::uint16_t> depth;        // nesting level within the lane
    std::vector<EventIndex> parent;          // enclosing event on the same lane, or invalid
    std::vector<std::uint32_t> args;         // index into Trace::args, or kNoArgs
    std::vector<std::uint64_t> sourceOffset; // byte offset of the event's '{' in the JSON text

    static constexpr std::uint32_t kNoArgs = std::numeric_limits<std::uint32_t>::max();

    std::size_t size() const { return start.size(); }
    std::int64_t end(EventIndex e) const { return start[e.value] + duration[e.value]; }
};

struct Process {
    ProcessId id;
    EntityId pid;
    std::string name;  // display name: process_name (+ process_labels), else derived from pid
    std::string label; // process_labels, e.g. "GPU 0"
    std::int64_t sortIndex = 0;
    std::vector<TrackId> tracks; // in display order
};

// A counter track: ph C series (one per arg key) and memory curves from [memory] instants.
struct CounterSeries {
    ProcessId process;
    std::string name; // "name" for C events with one value, "name.key" for several
    std::vector<std::int64_t> time; // ns, sorted
    std::vector<double> value;
};

// [memory] instants, in file order, with their typed fields (absent numbers are 0).
struct MemoryEvents {
    std::vector<std::int64_t> time;
    std::vector<TrackId> track;
    std::vector<std::int64_t> bytes;
    std::vector<std::int64_t> totalAllocated; // -1 when the trace predates the field (2021)
    std::vector<std::int64_t> totalReserved;  // -1 when absent
    std::vector<std::uint64_t> address;
    std::vector<std::int32_t> deviceType;
    std::vector<std::int32_t> deviceId;
    std::size_t size() const { return time.size(); }
};

// One end of a flow arrow; track invalid when the flow has no such end in the file.
struct FlowEnd {
    TrackId track;
    std::int64_t time = 0;
    EventIndex event; // the slice the end binds to (enclosing, or next for plain 'f'), if any
    bool operator==(const FlowEnd &) const = default;
};

// A flow step from one point to the next with the same (cat, id): s->f, s->t, t->f.
struct Flow {
    StringId category;
    StringId name;
    std::uint64_t id = 0;
    FlowEnd from;
    FlowEnd to;
    bool operator==(const Flow &) const = default;
};

// A process- or global-scoped instant (ph i/I with s "p" or "g"), e.g. Record Window End.
// Markers do not count towards the span.
struct Marker {
    std::int64_t time = 0;
    StringId name;
    ProcessId process; // invalid for global markers
};

// The top-level "distributedInfo" of a rank's trace (torch.distributed jobs). rank and
// worldSize are -1 when the trace has none.
struct DistributedInfo {
    int rank = -1;
    int worldSize = -1;
    std::string backend; // "nccl", "gloo", ...
    std::string pgConfig; // raw JSON of "pg_config", compacted; empty when absent
    bool present() const { return rank >= 0; }
    bool operator==(const DistributedInfo &) const = default;
};

// One entry of the top-level "deviceProperties" Kineto writes for each GPU; compute
// capability -1 when absent (an AMD GPU's is its gfx major, e.g. 9 for an MI250).
struct DeviceProperties {
    std::string name; // "Tesla V100-DGXS-32GB", "AMD Radeon Graphics"
    int computeMajor = -1;
    int computeMinor = -1;
    bool operator==(const DeviceProperties &) const = default;
};

// A collective's args as newer torch writes them on record_param_comms and NCCL kernels.
// Numbers are -1 and strings invalid when absent.
struct CollectiveArgs {
    StringId name;          // "Collective name", e.g. "allreduce"
    std::int64_t inNelems = -1;  // "In msg nelems"
    std::int64_t outNelems = -1; // "Out msg nelems"
    StringId dtype;         // "dtype", e.g. "Float"
    std::int32_t groupSize = -1; // "Group size"
    StringId groupName;     // "Process Group Name" ("0", "1", ...)
    StringId groupDesc;     // "Process Group Description" ("default_pg", "mesh_tp"; torch 2.3+)
    StringId groupRanks;    // "Process Group Ranks", as written
    std::int64_t sequence = -1; // "Seq": the call's number in its group (torch 2.4+)
    bool operator==(const CollectiveArgs &) const = default;
};

// Args that few events carry, kept beside EventArgs by args index (as CollectiveArgs are).
// Strings invalid and numbers -1 when absent.
struct ExtraArgs {
    // A compiled kernel's provenance on the op that launches it (torch.compile's Triton ops).
    StringId kernelBackend; // "kernel_backend", e.g. "triton"
    StringId kernelHash;    // "kernel_hash"
    StringId kernelFile;    // "kernel_file": the generated source
    StringId kernelKwargs;  // "kernel_kwargs", e.g. "XBLOCK=512"
    // A cuda_sync "Wait Event" of newer torch: the correlation id of the cudaEventRecord whose
    // event this stream waits for, and the stream that recorded it.
    std::int64_t waitOnCorrelation = -1; // "wait_on_cuda_event_record_corr_id"
    std::int32_t waitOnStream = -1;      // "wait_on_stream"
    bool operator==(const ExtraArgs &) const = default;
};

// The figures `pyrometer-cli info` prints and the Overview shows.
struct TraceInfo {
    std::filesystem::path file;
    std::uint64_t fileBytes = 0;  // on disk
    std::uint64_t jsonBytes = 0;  // after decompression
    std::uint64_t eventCount = 0; // every entry of traceEvents
    std::map<std::string, std::uint64_t> phaseCounts; // ph exactly as written ("" when missing)
    std::size_t processCount = 0;
    std::size_t trackCount = 0;
    std::int64_t spanStart = 0; // ns; 0/0 when the trace has no timed events
    std::int64_t spanEnd = 0;
    double loadSeconds = 0;
    double buildSeconds = 0; // of loadSeconds: building the model once every event was read
    std::uint64_t warningCount = 0;
    std::vector<std::string> warnings; // the first kMaxWarnings messages
    bool partial = false;              // a truncated file was loaded up to its valid prefix
    DistributedInfo distributed;
    std::vector<DeviceProperties> devices; // "deviceProperties", in file order
    // The torch that wrote the trace, when the file names it (a top-level "torch_version" or
    // "pytorch_version", or metadata.torch_env_info.torch_version): Kineto itself does not.
    std::string torchVersion;

    static constexpr std::size_t kMaxWarnings = 20;
    std::int64_t spanNanoseconds() const { return spanEnd - spanStart; }
    double spanMicroseconds() const { return static_cast<double>(spanEnd - spanStart) / 1000.0; }
    // The rate the JSON was parsed at: its size after decompression over the load time (a gzip
    // file's own size would understate it several times).
    double megabytesPerSecond() const
    {
        return loadSeconds > 0 ? static_cast<double>(jsonBytes) / 1e6 / loadSeconds : 0.0;
    }
};

// A loaded trace. Immutable once built; share it as std::shared_ptr<const Trace>.
struct Trace {
    TraceInfo info;
    bool gzipped = false;
    StringPool strings;
    std::vector<Process> processes; // in display order (sort index, then pid)
    std::vector<Track> tracks;      // indexed by TrackId
    std::vector<EventArgs> args;
    std::vector<CounterSeries> counters;
    MemoryEvents memory;
    std::vector<Flow> flows;
    std::vector<Marker> markers;
    // Events with collective args, by their index into args (sorted): few events have them.
    std::vector<std::pair<std::uint32_t, CollectiveArgs>> collectiveArgs;
    // Events with ExtraArgs, by their index into args (sorted).
    std::vector<std::pair<std::uint32_t, ExtraArgs>> extraArgs;

    std::string_view string(StringId id) const { return strings.view(id); }
    const Track &track(TrackId id) const { return tracks[id.value]; }
    const Process &process(ProcessId id) const { return processes[id.value]; }
    const EventArgs *eventArgs(TrackId track, EventIndex event) const;
    const CollectiveArgs *collective(TrackId track, EventIndex event) const;
    const ExtraArgs *extra(TrackId track, EventIndex event) const;
    std::uint64_t sliceCount() const;

    // Events of a track whose start lies in [from, to): an index range found by binary search.
    std::pair<EventIndex, EventIndex> startRange(TrackId track, std::int64_t from, std::int64_t to) const;
    // The deepest slice on the track that contains time (start <= time <= end), if any.
    EventIndex sliceAt(TrackId track, std::int64_t time) const;
    // The first slice on the track that starts at or after time, if any.
    EventIndex sliceStartingAt(TrackId track, std::int64_t time) const;

    // Approximate bytes held by the model (columns, strings, tables).
    std::size_t memoryBytes() const;
};

} // namespace pyrometer::trace
