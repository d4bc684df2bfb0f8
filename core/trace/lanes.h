#pragma once

#include "core/trace/trace.h"
#include "core/util/progress.h"

namespace pyrometer::trace {

// Sorts a track's columns by start (longer first on ties, then file order) and fills lane,
// depth and parent: an event nests under the innermost open event of the lowest lane that
// contains it; an event that overlaps another without nesting goes to the next lane that can
// take it, so nothing is dropped. laneCount is set as well.
void sortAndNest(Track &track);
// The same, checking stop between steps of bounded length (also inside the sort of a huge
// track); false when stopped, leaving the track half done.
bool sortAndNest(Track &track, const StopToken &stop);

} // namespace pyrometer::trace
