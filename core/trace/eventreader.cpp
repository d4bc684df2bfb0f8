#include "core/trace/eventreader.h"

#include <simdjson.h>

namespace pyrometer::trace {
namespace {

bool hasHaswell()
{
#if defined(__x86_64__) && defined(PYROMETER_HAVE_HASWELL_PARSER)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")
        && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("popcnt");
#else
    return false;
#endif
}

} // namespace

EventReader::EventReader(TraceBuilder &builder)
{
#ifdef PYROMETER_HAVE_HASWELL_PARSER
    if (hasHaswell()) {
        m_parser = haswell_variant::makeChunkParser(builder);
        return;
    }
#endif
    m_parser = baseline_variant::makeChunkParser(builder);
}

std::size_t EventReader::padding()
{
    return simdjson::SIMDJSON_PADDING;
}

const char *EventReader::variant()
{
    return hasHaswell() ? "haswell" : "baseline";
}

} // namespace pyrometer::trace
