#pragma once

#include "core/trace/tracebuilder.h"
#include "core/util/progress.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace pyrometer::trace {

struct ChunkResult {
    bool ok = true;
    bool stopped = false;
    std::string problem;                      // when !ok
    std::uint64_t problemOffset = UINT64_MAX; // offset in the JSON text, when known
    // Array entries handed to the builder before the chunk stopped or failed.
    std::size_t eventsDone = 0;
};

// Parses chunks of the traceEvents array with simdjson On-Demand (see EventReader). Holds
// simdjson's parser and its buffers: one per thread, reused from chunk to chunk.
class ChunkParser {
public:
    ChunkParser();
    ~ChunkParser();
    ChunkParser(const ChunkParser &) = delete;
    ChunkParser &operator=(const ChunkParser &) = delete;

    ChunkResult parse(TraceBuilder &builder, const char *chunk, std::size_t size, std::size_t capacity,
                      std::uint64_t baseOffset, const StopToken &stop);

private:
    struct Private;
    std::unique_ptr<Private> d_ptr;
};

} // namespace pyrometer::trace
