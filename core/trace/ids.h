#pragma once

#include "core/util/strongid.h"

#include <cstdint>

namespace pyrometer::trace {

struct StringTag {};
struct TrackTag {};
struct EventTag {};
struct ProcessTag {};

// An interned string in Trace::strings.
using StringId = StrongId<StringTag>;
// A track (one pid/tid, or one GPU stream) in Trace::tracks.
using TrackId = StrongId<TrackTag>;
// An event's position in its track's columns (tracks are sorted by start).
using EventIndex = StrongId<EventTag>;
// A process in Trace::processes.
using ProcessId = StrongId<ProcessTag>;

} // namespace pyrometer::trace
