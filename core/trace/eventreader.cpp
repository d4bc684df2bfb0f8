#include "core/trace/eventreader.h"

#include <simdjson.h>

namespace pyrometer::trace {

std::size_t EventReader::padding()
{
    return simdjson::SIMDJSON_PADDING;
}

const char *EventReader::variant()
{
    // A std::string owned by the implementation, which lives for the whole program.
    return simdjson::get_active_implementation()->name().c_str();
}

} // namespace pyrometer::trace
