#pragma once

namespace pyrometer {

// Hands the heap's free pages back to the system. Building a large trace or index frees many
// blocks (chunks parsed on worker threads, sort buffers, columns that grew), and glibc keeps
// that memory resident for later allocations unless asked to trim. A no-op elsewhere.
void releaseFreedMemory();

} // namespace pyrometer
