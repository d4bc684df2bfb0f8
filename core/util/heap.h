#pragma once

namespace pyrometer {

// Hands the heap's free pages back to the system. Building a large trace or index frees many
// blocks (chunks parsed on worker threads, sort buffers, columns that grew), and glibc keeps
// that memory resident for later allocations unless asked to trim. A no-op elsewhere.
void releaseFreedMemory();

// The program's operator new (heap.cpp) backs every block of 2 MiB or more with transparent
// huge pages where the system allows it (Linux with THP "always" or "madvise"; not under
// sanitizers): their pages are then faulted in 2 MiB at a time instead of 4 KiB.

} // namespace pyrometer
