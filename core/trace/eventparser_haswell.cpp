// The event parser built for CPUs with AVX2 (see eventparser.inl).
#define PYROMETER_PARSER_VARIANT haswell_variant
#include "core/trace/eventparser.inl"
