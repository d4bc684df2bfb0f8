#pragma once

#include "core/trace/eventparser.h"

namespace pyrometer::trace {

// Parses one chunk of the traceEvents array with simdjson On-Demand and feeds each event to a
// TraceBuilder. A chunk is "[" event, event, ... "]" in a buffer that has simdjson's padding
// after it. One reader per thread; the builder may change from chunk to chunk.
class EventReader {
public:
    // chunk points to the '[' (or the byte that stands in for it); size includes the closing
    // ']'; capacity >= size + padding(). baseOffset is chunk[0]'s offset in the JSON text.
    ChunkResult parseChunk(TraceBuilder &builder, const char *chunk, std::size_t size, std::size_t capacity,
                           std::uint64_t baseOffset, const StopToken &stop)
    {
        return m_parser.parse(builder, chunk, size, capacity, baseOffset, stop);
    }

    // simdjson's padding requirement, so the loader need not include simdjson.
    static std::size_t padding();
    // The simdjson kernel chosen at run time for this CPU ("icelake", "haswell", "fallback"...).
    static const char *variant();

private:
    ChunkParser m_parser;
};

} // namespace pyrometer::trace
