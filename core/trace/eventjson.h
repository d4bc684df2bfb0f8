#pragma once

#include "core/trace/trace.h"
#include "core/util/result.h"

#include <cstdint>
#include <string>

namespace pyrometer::trace {

// The full JSON text of one event, re-read from the trace file at the event's sourceOffset:
// the model keeps only a few args, a details pane shows them all. Cheap for plain files; a
// gzip file is inflated from its start up to the event.
Result<std::string> readEventJson(const Trace &trace, TrackId track, EventIndex event);
Result<std::string> readJsonObjectAt(const std::filesystem::path &file, std::uint64_t offset);

} // namespace pyrometer::trace
