#pragma once

#include "core/trace/trace.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// What an event is, from its category (names of 2021 traces and of today's Kineto both).
enum class EventKind : std::uint8_t {
    Other,
    Op,            // cpu_op, user_annotation, 2021 Operator, or no category (legacy exporter)
    Python,        // python_function
    Runtime,       // cuda_runtime, cuda_driver, 2021 Runtime
    Kernel,        // kernel, 2021 Kernel
    Memcpy,        // gpu_memcpy, 2021 Memcpy
    Memset,        // gpu_memset, 2021 Memset
    GpuAnnotation, // gpu_user_annotation
    Sync,          // cuda_sync
};

constexpr bool isDeviceKind(EventKind kind)
{
    return kind == EventKind::Kernel || kind == EventKind::Memcpy || kind == EventKind::Memset;
}

std::string_view kindName(EventKind kind);

// Whether a runtime or driver call replays a CUDA or HIP graph (cudaGraphLaunch, hipGraphLaunch,
// cuGraphLaunch): the device events it ran carry its correlation id.
bool isGraphLaunchName(std::string_view name);

// Category id -> kind, for one trace's string pool: the categories of CUDA, ROCm and Kineto's other
// accelerators (MTIA, XPU, HPU, PrivateUse1), MTIA's transfers and waits by name, and any other
// category whose events end a launch flow (ac2g) as device work.
class KindTable {
public:
    explicit KindTable(const trace::Trace &trace);
    EventKind kind(const trace::Track &track, std::uint32_t event) const;

private:
    struct ByName {
        trace::StringId category;
        trace::StringId name;
        EventKind kind;
    };
    std::vector<EventKind> m_byCategory;
    std::vector<ByName> m_byName; // few: checked for every event
};

} // namespace pyrometer::analysis
