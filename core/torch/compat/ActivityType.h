#pragma once
// Debian's libtorch is built without Kineto, yet torch/csrc/profiler/kineto_shim.h (included
// by profiler/collection.h, whose Result type holds allocation addresses and ns timestamps)
// includes Kineto's ActivityType.h. This stands in for it, with Kineto's enum values; nothing
// here calls into Kineto.
namespace libkineto {
enum class ActivityType {
    CPU_OP = 0,
    USER_ANNOTATION,
    GPU_USER_ANNOTATION,
    GPU_MEMCPY,
    GPU_MEMSET,
    CONCURRENT_KERNEL,
    EXTERNAL_CORRELATION,
    CUDA_RUNTIME,
    CUDA_PROFILER_RANGE,
    GLOW_RUNTIME,
    CPU_INSTANT_EVENT,
    PYTHON_FUNCTION,
    OVERHEAD,
    ENUM_COUNT
};
} // namespace libkineto
