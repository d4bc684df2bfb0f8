#pragma once

#include <memory_resource>

namespace pyrometer {

// Hands the heap's free pages back to the system. Building a large trace or index frees many
// blocks (chunks parsed on worker threads, sort buffers, columns that grew), and glibc keeps
// that memory resident for later allocations unless asked to trim. A no-op elsewhere.
void releaseFreedMemory();

// The program's operator new (heap.cpp) backs every block of 2 MiB or more with transparent
// huge pages where the system allows it (Linux with THP "always" or "madvise"; not under
// sanitizers): their pages are then faulted in 2 MiB at a time instead of 4 KiB.

// Memory in blocks mapped on their own and backed by transparent huge pages where the system
// allows it (elsewhere, operator new's): for structures of millions of entries read at random,
// where every 4 KiB page is a TLB miss, on a virtual machine a walk of two page tables. Blocks
// from operator new come from the heap's pages, faulted in 4 KiB at a time, where they are
// smaller than glibc's adaptive mapping threshold (up to 32 MiB). Thread-safe; never destroyed.
std::pmr::memory_resource *hugePageResource();

} // namespace pyrometer
