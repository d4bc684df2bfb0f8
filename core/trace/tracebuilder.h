#pragma once

#include "core/trace/rawevent.h"
#include "core/trace/trace.h"
#include "core/util/progress.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace pyrometer::trace {

// Collects events as the reader finds them (in file order) and turns them into an immutable
// Trace: tracks sorted by start with lanes, depth and parents, named processes and tracks,
// paired flows, counter series.
//
// Chunks of a file can be parsed on several threads, each into a partial builder of its own
// (with its own string pool); the loader then absorbs the partial builders into the main one
// in file order, which gives the same Trace as reading the file in one pass.
class TraceBuilder {
public:
    // partial: a builder for one chunk, to be absorbed into the main one. It keeps E events
    // that find no B in the chunk for absorb(), since their B may be in an earlier chunk.
    explicit TraceBuilder(bool partial = false);
    ~TraceBuilder();
    TraceBuilder(const TraceBuilder &) = delete;
    TraceBuilder &operator=(const TraceBuilder &) = delete;

    StringPool &strings() { return m_trace->strings; }

    // Counts one traceEvents entry and its ph, then models it.
    void add(const RawEvent &event);
    // Counts an entry that was skipped (wrong type, not an object), with a warning.
    void addSkipped(std::string_view ph, bool hasPh, std::uint64_t offset, std::string message);
    // A warning about the byte at offset (warnings are kept in file order), or about the whole.
    void warn(std::string message);
    void warn(std::uint64_t offset, std::string message);

    // Moves the events of a partial builder (the chunk that follows everything added so far)
    // into this one.
    void absorb(TraceBuilder &part);
    // Says that what was added so far is `share` (0..1) of the input: the columns of the
    // tracks and the args reserve room for the rest at the same pace (10% over), so that
    // absorbing part after part appends in place instead of moving columns that doubled.
    // Reserved room that is never written costs no memory.
    void expectRest(double share);

    std::uint64_t eventCount() const { return m_trace->info.eventCount; }

    // Builds the trace, with up to `threads` helper threads; nullptr when stopped.
    std::unique_ptr<Trace> finish(const StopToken &stop, int threads = 0);

private:
    struct ProcessBuild {
        EntityId pid;
        StringId name;
        StringId labels;
        std::int64_t sortIndex = 0;
        bool hasSortIndex = false;
        std::uint32_t finalIndex = 0;
    };

    struct TrackBuild {
        std::uint32_t process = 0;
        EntityId tid;
        StringId name;
        std::int64_t sortIndex = 0;
        bool hasSortIndex = false;
        std::vector<std::int64_t> start;
        std::vector<std::int64_t> duration;
        std::vector<StringId> eventName;
        std::vector<StringId> category;
        std::vector<SliceKind> kind;
        std::vector<std::uint32_t> args;
        std::vector<std::uint64_t> sourceOffset;
        std::vector<std::uint32_t> openBegins; // indices of B events waiting for their E
        std::uint32_t finalId = 0;
    };
    struct EntityKey {
        std::int64_t number;
        std::uint32_t text;
        bool operator==(const EntityKey &) const = default;
    };
    struct PairKey {
        EntityKey pid;
        EntityKey tid;
        bool operator==(const PairKey &) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const EntityKey &key) const noexcept;
        std::size_t operator()(const PairKey &key) const noexcept;
    };
    struct FlowPoint {
        StringId category;
        StringId name;
        std::uint64_t id;
        std::uint32_t track;
        std::int64_t time;
        std::uint32_t order; // file order, to keep ties stable
        char phase;
        bool bindEnclosing;
        bool textId; // id holds a StringId (see RawEvent::flowIdIsText)
    };
    struct CounterKey {
        std::uint32_t process;
        std::uint32_t name;
        std::uint32_t key;
        bool operator==(const CounterKey &) const = default;
    };
    struct CounterHash {
        std::size_t operator()(const CounterKey &key) const noexcept;
    };
    struct CounterBuild {
        CounterKey key; // process build index, event name, arg key
        CounterSeries series;
    };
    struct PendingEnd { // an E event of a partial builder whose B is in an earlier chunk
        std::uint32_t track;
        std::int64_t time;
        std::uint64_t sourceOffset;
    };
    struct Warning {
        std::uint64_t offset;
        std::string message;
    };

    void countPhase(const RawEvent &event);
    std::uint32_t processIndex(const EntityId &pid);
    std::uint32_t trackIndex(const EntityId &pid, const EntityId &tid);
    void extendSpan(std::int64_t from, std::int64_t to);
    void addSlice(const RawEvent &event, SliceKind kind, std::int64_t duration);
    void addMetadata(const RawEvent &event);
    void addMemory(const RawEvent &event);
    void addCounter(const RawEvent &event);
    void endSlice(std::uint32_t trackIndex, std::int64_t time, std::uint64_t sourceOffset);
    void markUsed();
    void finishProcesses(Trace &trace);
    bool finishTracks(Trace &trace, const StopToken &stop, int threads);
    void sortFlowPoints();
    void finishFlows(Trace &trace);
    void finishCounters(Trace &trace);

    std::unique_ptr<Trace> m_trace;
    std::uint64_t m_singleCharPhases[128] = {};
    std::vector<std::unique_ptr<ProcessBuild>> m_processes;
    std::unordered_map<EntityKey, std::uint32_t, KeyHash> m_processByPid;
    std::vector<std::unique_ptr<TrackBuild>> m_tracks;
    std::unordered_map<PairKey, std::uint32_t, KeyHash> m_trackByIds;
    PairKey m_lastKey{};
    std::uint32_t m_lastTrack = UINT32_MAX;
    std::vector<FlowPoint> m_flowPoints;
    std::unordered_map<CounterKey, std::uint32_t, CounterHash> m_counterByKey;
    std::vector<CounterBuild> m_counters;
    std::vector<PendingEnd> m_pendingEnds;
    std::vector<Warning> m_warnings; // the first kMaxWarnings, in file order
    bool m_partial = false;
    std::vector<bool> m_trackUsed;
    std::vector<bool> m_processUsed;
    bool m_hasSpan = false;
    StringId m_memoryName;
};

} // namespace pyrometer::trace
