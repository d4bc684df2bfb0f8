#pragma once

#include "core/trace/trace.h"

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace pyrometer::trace {

// The fixed-size fields of a RawEvent, reset from one constant per event.
struct RawEventFields {
    std::string_view ph;
    bool hasPh = false;
    StringId name;
    StringId category;
    EntityId pid;
    EntityId tid;
    std::int64_t ts = 0;
    bool hasTs = false;
    std::int64_t dur = 0;
    bool hasDur = false;
    char scope = 't'; // "s": t (thread), p (process), g (global)
    std::uint64_t flowId = 0;
    bool hasFlowId = false;
    bool flowIdIsText = false; // flowId is (1 << 63) | the StringId of the text
    bool bindEnclosing = false; // bp "e"
    std::uint64_t sourceOffset = 0;

    EventArgs args;
    bool hasArgs = false;
    CollectiveArgs collective;
    bool hasCollective = false;
    ExtraArgs extra;
    bool hasExtra = false;

    // [memory] fields
    std::int64_t bytes = 0;
    std::int64_t totalAllocated = -1;
    std::int64_t totalReserved = -1;
    std::uint64_t address = 0;
    std::int32_t deviceType = 0;
    std::int32_t deviceId = 0;

    // M fields
    StringId metaName;
    StringId metaLabels;
    std::int64_t sortIndex = 0;
    bool hasSortIndex = false;
};

// One traceEvents entry as the JSON reader hands it to the TraceBuilder: only the fields the
// model keeps, already typed. Reused from event to event, so it owns no text (strings are
// interned or point into the reader's buffer for the duration of one add()).
struct RawEvent : RawEventFields {
    // C values (and every numeric arg while ph is not yet known)
    std::vector<std::pair<StringId, double>> numbers;

    // Every field as a new RawEvent has it; numbers keeps its capacity.
    void reset()
    {
        static_cast<RawEventFields &>(*this) = RawEventFields();
        numbers.clear();
    }
};

} // namespace pyrometer::trace
