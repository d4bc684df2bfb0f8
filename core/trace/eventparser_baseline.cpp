// The event parser built for any CPU of the target architecture (see eventparser.inl).
#define PYROMETER_PARSER_VARIANT baseline_variant
#include "core/trace/eventparser.inl"
