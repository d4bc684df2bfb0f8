#pragma once

#include "core/trace/eventparser.h"

namespace pyrometer::trace {

// Parses one chunk of the traceEvents array with simdjson On-Demand and feeds each event to a
// TraceBuilder. A chunk is "[" event, event, ... "]" in a buffer that has simdjson's padding
// after it. Uses the AVX2 build of the parser where the CPU has it.
class EventReader {
public:
    explicit EventReader(TraceBuilder &builder);

    // chunk points to the '[' (or the ',' that stands in for it); size includes the closing
    // ']'; capacity >= size + padding(). baseOffset is chunk[0]'s offset in the JSON text.
    ChunkResult parseChunk(const char *chunk, std::size_t size, std::size_t capacity, std::uint64_t baseOffset,
                           const StopToken &stop)
    {
        return m_parser->parse(chunk, size, capacity, baseOffset, stop);
    }

    // simdjson's padding requirement, so the loader need not include simdjson.
    static std::size_t padding();
    // "haswell" or "baseline": which parser build runs on this CPU.
    static const char *variant();

private:
    std::unique_ptr<ChunkParser> m_parser;
};

} // namespace pyrometer::trace
