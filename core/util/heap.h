#pragma once

#include <cstddef>

namespace pyrometer {

// Hands the heap's free pages back to the system. Building a large trace or index frees many
// blocks (chunks parsed on worker threads, sort buffers, columns that grew), and glibc keeps
// that memory resident for later allocations unless asked to trim. A no-op elsewhere.
void releaseFreedMemory();

// Blocks from operator new of at least this size are backed by transparent huge pages where
// the system allows it (Linux with THP "always" or "madvise"; not under sanitizers): their
// pages are then faulted in 2 MiB at a time instead of 4 KiB.
inline constexpr std::size_t kLargeBlockBytes = std::size_t(2) << 20;

// Asks for huge pages for the whole 2 MiB pages inside [block, block + size), before they are
// first written. A no-op where the system has none.
void adviseHugePages(void *block, std::size_t size);

} // namespace pyrometer
