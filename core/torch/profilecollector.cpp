// Profiling runs of a model: every op and range (its times, thread, nesting, input shapes and
// dtypes, TorchScript module frames) and every allocation and free, collected through libtorch's
// public hooks (RecordFunction callbacks and c10's memory reporting), the ones its own profiler is
// built on. The profiler's internals (torch::profiler::impl) change with every release; these
// hooks compile unchanged against libtorch 1.13 and 2.6.

#include "core/torch/memoryobserver.h"
#include "core/torch/sessionimpl.h"
#include "core/torch/torcherror.h"

#include <ATen/record_function.h>
#include <c10/core/ScalarTypeToTypeMeta.h>
#include <torch/csrc/jit/runtime/interpreter.h>

#include <algorithm>
#include <chrono>
#include <mutex>

namespace pyrometer::torch {
namespace {

// Nanoseconds on the Unix epoch, from a steady clock (durations never jump with the wall clock).
class EpochClock {
public:
    EpochClock()
        : m_steadyStart(std::chrono::steady_clock::now()),
          m_epochStartNs(std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count())
    {}
    std::int64_t nowNs() const
    {
        return m_epochStartNs +
               std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - m_steadyStart).count();
    }

private:
    std::chrono::steady_clock::time_point m_steadyStart;
    std::int64_t m_epochStartNs;
};

// What one profiling session collects. Installed as the thread's memory observer, which is also
// how the RecordFunction callbacks find it, in the calling thread and in any thread that inherits
// its debug info.
class ProfileCollector final : public MemoryObserver {
public:
    void onMemory(void *address, std::int64_t bytes, std::int64_t totalAllocated, c10::Device device) override
    {
        MemoryEvent event;
        event.timeNs = m_clock.nowNs();
        event.threadId = at::RecordFunction::currentThreadId();
        event.bytes = bytes;
        event.totalAllocated = totalAllocated;
        event.address = reinterpret_cast<std::uintptr_t>(address);
        event.deviceType = static_cast<int>(device.type());
        event.deviceId = device.index();
        const std::lock_guard lock(m_mutex);
        m_profile.memory.push_back(event);
    }

    std::size_t begin(ProfiledOp op)
    {
        op.startNs = m_clock.nowNs();
        const std::lock_guard lock(m_mutex);
        m_profile.ops.push_back(std::move(op));
        return m_profile.ops.size() - 1;
    }

    void end(std::size_t index)
    {
        const auto now = m_clock.nowNs();
        const std::lock_guard lock(m_mutex);
        auto &op = m_profile.ops[index];
        op.durationNs = std::max<std::int64_t>(0, now - op.startNs);
    }

    RecordedProfile take()
    {
        const std::lock_guard lock(m_mutex);
        return std::move(m_profile);
    }

private:
    EpochClock m_clock;
    std::mutex m_mutex;
    RecordedProfile m_profile;
};

// Nesting of the recorded events on each thread.
thread_local int t_depth = 0;

struct OpContext : at::ObserverContext {
    ProfileCollector *collector = nullptr;
    std::size_t index = 0;
};

// The dtype names PyTorch's traces use ("float", "long int", "c10::Half"); "Scalar" for numbers
// and "TensorList" for lists of tensors, as its profiler writes them.
void describeInput(const c10::IValue &value, ProfiledOp &op)
{
    if (value.isTensor() && value.toTensor().defined()) {
        const auto &tensor = value.toTensor();
        op.inputShapes.push_back(tensor.sizes().vec());
        op.inputTypes.emplace_back(c10::scalarTypeToTypeMeta(tensor.scalar_type()).name());
        return;
    }
    op.inputShapes.emplace_back();
    if (value.isScalar())
        op.inputTypes.emplace_back("Scalar");
    else if (value.isTensorList())
        op.inputTypes.emplace_back("TensorList");
    else
        op.inputTypes.emplace_back();
}

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction &fn)
{
    auto *collector = MemoryObserverGuard::current<ProfileCollector>();
    if (!collector)
        return nullptr;
    ProfiledOp op;
    op.name = fn.name();
    op.threadId = at::RecordFunction::currentThreadId();
    op.scope = static_cast<int>(fn.scope());
    op.depth = t_depth++;
    op.sequenceNr = fn.seqNr();
    for (const auto &input : fn.inputs())
        describeInput(input, op);
    if (fn.scope() != at::RecordScope::BACKWARD_FUNCTION) // as libtorch's profiler: backward has no module
        op.moduleFrames = ::torch::jit::currentModuleHierarchy();
    auto context = std::make_unique<OpContext>();
    context->collector = collector;
    context->index = collector->begin(std::move(op));
    return context;
}

void onEnd(const at::RecordFunction &, at::ObserverContext *context)
{
    if (!context)
        return;
    --t_depth;
    auto *op = static_cast<OpContext *>(context);
    op->collector->end(op->index);
}

// Collects while it lives, on the calling thread.
class Collecting {
public:
    Collecting()
        : m_collector(std::make_shared<ProfileCollector>()),
          m_guard(m_collector),
          m_handle(at::addThreadLocalCallback(at::RecordFunctionCallback(onStart, onEnd).needsInputs(true)))
    {}
    ~Collecting() { at::removeCallback(m_handle); }
    Collecting(const Collecting &) = delete;
    Collecting &operator=(const Collecting &) = delete;
    RecordedProfile take() { return m_collector->take(); }

private:
    std::shared_ptr<ProfileCollector> m_collector;
    MemoryObserverGuard m_guard;
    at::CallbackHandle m_handle;
};

} // namespace

Result<RecordedProfile> ModelSession::recordProfile(int iterations, int firstStep)
{
    std::optional<Error> failed;
    RecordedProfile profile;
    try {
        Collecting collecting;
        for (int i = 0; i < iterations && !failed; ++i) {
            at::RecordFunction step(at::RecordScope::USER_SCOPE);
            if (step.isActive())
                step.before("ProfilerStep#" + std::to_string(firstStep + i));
            failed = m_impl->guarded([&] { m_impl->runOnce(); });
        }
        profile = collecting.take();
    } catch (const std::exception &error) {
        return Error{m_impl->path.string() + ": the profiler failed: " + cleanTorchMessage(error.what())};
    }
    if (failed)
        return *failed;
    profile.iterations = iterations;
    std::stable_sort(profile.ops.begin(), profile.ops.end(), [](const ProfiledOp &a, const ProfiledOp &b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.depth < b.depth;
    });
    std::stable_sort(profile.memory.begin(), profile.memory.end(),
                     [](const MemoryEvent &a, const MemoryEvent &b) { return a.timeNs < b.timeNs; });
    // Without an allocator that reports its total, count it from the profile's start.
    if (std::all_of(profile.memory.begin(), profile.memory.end(), [](const MemoryEvent &e) { return e.totalAllocated == 0; })) {
        std::int64_t total = 0;
        for (auto &event : profile.memory)
            event.totalAllocated = total += event.bytes;
    }
    return profile;
}

} // namespace pyrometer::torch
