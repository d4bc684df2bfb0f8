#pragma once

namespace pyrometer::ui {

class JobTracker;

// Hands the heap's free pages back to the system. A closed trace frees hundreds of megabytes
// in many blocks, much of it in the arenas of the worker threads that built it; glibc keeps
// such memory for later allocations unless asked to trim.
void releaseFreedMemory();
// The same once the events queued now have run and every job has ended (a cancelled job
// holds its document until it returns).
void releaseFreedMemoryLater(JobTracker *jobs);

} // namespace pyrometer::ui
