#pragma once
// Internal to core/torch's .cpp files: includes libtorch. Never include from a public header.
//
// Seeing every allocation and free of the calling thread (and of the intra-op threads its
// parallel regions start) through c10's public memory-reporting hook, the one the profiler
// uses. The hook's signature differs between libtorch versions: this is the one place that
// knows it (checked on 1.13 and 2.6).

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/version.h>

#include <cstdint>
#include <memory>

namespace pyrometer::torch {

class MemoryObserver : public c10::MemoryReportingInfoBase {
public:
    // bytes > 0: allocated at address; bytes < 0: freed. totalAllocated is what the allocator
    // says it holds after the event, 0 where it does not count.
    virtual void onMemory(void *address, std::int64_t bytes, std::int64_t totalAllocated, c10::Device device) = 0;

#if TORCH_VERSION_MAJOR >= 2
    void reportMemoryUsage(void *ptr, int64_t allocSize, size_t totalAllocated, size_t, c10::Device device) final
#else
    void reportMemoryUsage(void *ptr, int64_t allocSize, int64_t totalAllocated, int64_t, c10::Device device) final
#endif
    {
        onMemory(ptr, allocSize, static_cast<std::int64_t>(totalAllocated), device);
    }
    bool memoryProfilingEnabled() const final { return true; }
};

// Installs an observer for the calling thread while it lives (and for the threads that inherit
// the thread's debug info: intra-op workers). At most one observer is active per thread, as
// with the profiler: a nested guard shadows the outer one until it ends.
class MemoryObserverGuard {
public:
    explicit MemoryObserverGuard(std::shared_ptr<MemoryObserver> observer)
        : m_guard(c10::DebugInfoKind::PROFILER_STATE, std::move(observer))
    {}

    // The observer installed for the calling thread, if it is of type T.
    template <typename T>
    static T *current()
    {
        return dynamic_cast<T *>(c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE));
    }

private:
    c10::DebugInfoGuard m_guard;
};

} // namespace pyrometer::torch
