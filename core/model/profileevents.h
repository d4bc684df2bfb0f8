#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pyrometer::model {

// One operator or range recorded by libtorch's profiler, as plain data.
struct ProfiledOp {
    std::string name;
    std::int64_t startNs = 0; // on the profiler's clock (Unix epoch, ns)
    std::int64_t durationNs = 0;
    std::uint64_t threadId = 0;
    int scope = 0; // at::RecordScope: 0 aten op, 1 backward, 2 TorchScript function, 7 user scope
    int depth = 0; // nesting among the recorded events of its thread
    std::int64_t sequenceNr = -1;
    std::vector<std::vector<std::int64_t>> inputShapes;
    std::vector<std::string> inputTypes;
    std::vector<std::string> moduleFrames; // "TOP(ResNet)::forward", "layer1(Sequential)::forward", ...
    // The device time of the kernels, copies and sets it launched itself (not its nested ops'),
    // matched by correlation id; -1 when the engine ran on no device (the CPU).
    std::int64_t deviceNs = -1;
    bool operator==(const ProfiledOp &) const = default;
};

// A CPU allocation (bytes > 0) or free (bytes < 0) seen by the profiler.
struct MemoryEvent {
    std::int64_t timeNs = 0;
    std::uint64_t threadId = 0;
    std::int64_t bytes = 0;
    std::int64_t totalAllocated = 0; // after this event, as the allocator counts it
    std::uint64_t address = 0;
    int deviceType = 0; // c10::DeviceType: 0 CPU
    int deviceId = -1;
    bool operator==(const MemoryEvent &) const = default;
};

// What one profiling session recorded, sorted by start.
struct RecordedProfile {
    std::vector<ProfiledOp> ops;
    std::vector<MemoryEvent> memory;
    int iterations = 0;
    bool operator==(const RecordedProfile &) const = default;
};

} // namespace pyrometer::model
