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

// Parses chunks of the traceEvents array for one TraceBuilder (see EventReader).
class ChunkParser {
public:
    virtual ~ChunkParser() = default;
    virtual ChunkResult parse(const char *chunk, std::size_t size, std::size_t capacity, std::uint64_t baseOffset,
                              const StopToken &stop) = 0;
};

// One copy per instruction set; EventReader chooses.
namespace haswell_variant {
std::unique_ptr<ChunkParser> makeChunkParser(TraceBuilder &builder);
}
namespace baseline_variant {
std::unique_ptr<ChunkParser> makeChunkParser(TraceBuilder &builder);
}

} // namespace pyrometer::trace
