#pragma once

namespace pyrometer::ui {

class JobTracker;

// Hands the heap's free pages back to the system (core/util/heap) once the events queued now
// have run and every job has ended: a closed trace frees hundreds of megabytes in many blocks,
// much of it in the arenas of the worker threads that computed from it, and a cancelled job
// holds its document until it returns.
void releaseFreedMemoryLater(JobTracker *jobs);

} // namespace pyrometer::ui
