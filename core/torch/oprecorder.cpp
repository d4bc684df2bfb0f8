// Recording what a forward pass runs: RecordFunction callbacks (every top-level op with its
// arguments and outputs, for FLOPs) and libtorch's profiler (timings, shapes, memory, modules).
//
// RecordFunction::inputs() asserts in debug builds when the dispatcher handed no boxed inputs
// to a nested op; the callbacks below only read inputs of ops they asked for, and the check
// is a debug-only assert in an inline header function, so it is compiled out here.
#ifndef NDEBUG
#define NDEBUG
#endif

#include "core/torch/sessionimpl.h"
#include "core/torch/torcherror.h"

#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/jit/runtime/interpreter.h>
#include <torch/csrc/profiler/collection.h>

#include <algorithm>
#include <unordered_set>

namespace pyrometer::torch {
namespace {

namespace profiler = ::torch::profiler::impl;

// The collector of the thread that is recording; callbacks are thread-local, so is this.
struct OpCollector {
    std::vector<OpRecord> ops;
    int depth = 0;
};
thread_local OpCollector *t_collector = nullptr;

struct RecordContext : at::ObserverContext {
    std::size_t index = 0;
};

OpArg toArg(const c10::IValue &value)
{
    OpArg arg;
    if (value.isTensor()) {
        const auto &tensor = value.toTensor();
        arg.kind = OpArg::Kind::Tensor;
        if (tensor.defined())
            arg.values = tensor.sizes().vec();
        else
            arg.kind = OpArg::Kind::None;
    } else if (value.isInt()) {
        arg.kind = OpArg::Kind::Int;
        arg.values = {value.toInt()};
    } else if (value.isBool()) {
        arg.kind = OpArg::Kind::Bool;
        arg.values = {value.toBool() ? 1 : 0};
    } else if (value.isDouble()) {
        arg.kind = OpArg::Kind::Double;
        arg.number = value.toDouble();
    } else if (value.isIntList()) {
        arg.kind = OpArg::Kind::IntList;
        arg.values = value.toIntVector();
    } else if (value.isTensorList()) {
        arg.kind = OpArg::Kind::TensorList;
        for (const auto &tensor : value.toTensorVector())
            arg.tensors.push_back(tensor.defined() ? tensor.sizes().vec() : std::vector<std::int64_t>{});
    } else if (value.isList()) {
        // Generic lists of ints or tensors (what the interpreter often passes).
        const auto list = value.toListRef();
        bool ints = !list.empty();
        bool tensors = !list.empty();
        for (const auto &element : list) {
            ints = ints && element.isInt();
            tensors = tensors && element.isTensor();
        }
        if (ints) {
            arg.kind = OpArg::Kind::IntList;
            for (const auto &element : list)
                arg.values.push_back(element.toInt());
        } else if (tensors) {
            arg.kind = OpArg::Kind::TensorList;
            for (const auto &element : list)
                arg.tensors.push_back(element.toTensor().sizes().vec());
        } else {
            arg.kind = OpArg::Kind::Other;
        }
    } else if (value.isObject()) {
        // A packed int8 weight (quantized convolutions and linears take one): recorded as the
        // weight tensor its unpack() gives, so the cost formulas see the kernel's shape. Ops
        // unpack() runs nest inside this one and are not recorded.
        arg.kind = OpArg::Kind::Other;
        if (auto *unpack = value.toObjectRef().type()->findMethod("unpack")) {
            try {
                const auto unpacked = (*unpack)({value});
                if (unpacked.isTuple() && !unpacked.toTupleRef().elements().empty() && unpacked.toTupleRef().elements()[0].isTensor()) {
                    arg.kind = OpArg::Kind::Tensor;
                    arg.values = unpacked.toTupleRef().elements()[0].toTensor().sizes().vec();
                }
            } catch (const std::exception &) {
                // An engine that cannot unpack: the op is recorded without its weight.
            }
        }
    } else if (!value.isNone()) {
        arg.kind = OpArg::Kind::Other;
    }
    return arg;
}

std::unique_ptr<at::ObserverContext> onOpStart(const at::RecordFunction &fn)
{
    auto *collector = t_collector;
    if (!collector)
        return nullptr;
    if (collector->depth++ > 0)
        return nullptr;
    OpRecord record;
    record.name = fn.name();
    record.moduleFrames = ::torch::jit::currentModuleHierarchy();
    for (const auto &input : fn.inputs())
        record.args.push_back(toArg(input));
    auto context = std::make_unique<RecordContext>();
    context->index = collector->ops.size();
    collector->ops.push_back(std::move(record));
    return context;
}

void onOpEnd(const at::RecordFunction &fn, at::ObserverContext *context)
{
    auto *collector = t_collector;
    if (!collector)
        return;
    --collector->depth;
    if (!context)
        return;
    auto &record = collector->ops[static_cast<RecordContext *>(context)->index];
    for (const auto &output : fn.outputs()) {
        if (output.isTensor() && output.toTensor().defined())
            record.outputShapes.push_back(output.toTensor().sizes().vec());
        else if (output.isTensorList())
            for (const auto &tensor : output.toTensorVector())
                record.outputShapes.push_back(tensor.sizes().vec());
    }
}

// Adds result and its descendants to profile once each; depth is the nesting level.
void collect(const std::shared_ptr<profiler::Result> &result, int depth, std::unordered_set<const profiler::Result *> &seen,
             RecordedProfile &profile)
{
    if (!result || !seen.insert(result.get()).second)
        return;
    result->visit([&](const auto &fields) {
        using Fields = std::decay_t<decltype(fields)>;
        if constexpr (std::is_same_v<Fields, profiler::ExtraFields<profiler::EventType::TorchOp>>) {
            ProfiledOp op;
            op.name = fields.name_;
            op.startNs = result->start_time_ns_;
            op.durationNs = std::max<std::int64_t>(0, fields.end_time_ns_ - result->start_time_ns_);
            op.threadId = result->start_tid_;
            op.scope = static_cast<int>(fields.scope_);
            op.depth = depth;
            op.sequenceNr = fields.sequence_number_;
            op.inputShapes = fields.inputs_.shapes_;
            op.inputTypes = fields.inputs_.dtypes_;
            op.moduleFrames = fields.jit_modules_;
            profile.ops.push_back(std::move(op));
        } else if constexpr (std::is_same_v<Fields, profiler::ExtraFields<profiler::EventType::Allocation>>) {
            MemoryEvent event;
            event.timeNs = result->start_time_ns_;
            event.threadId = result->start_tid_;
            event.bytes = fields.alloc_size_;
            event.totalAllocated = fields.total_allocated_;
            event.address = reinterpret_cast<std::uintptr_t>(fields.ptr_);
            event.deviceType = static_cast<int>(fields.device_type_);
            event.deviceId = fields.device_index_;
            profile.memory.push_back(event);
        }
    });
    for (const auto &child : result->children_)
        collect(child, depth + 1, seen, profile);
}

} // namespace

namespace {

// Records every top-level op the calling thread runs while it lives.
class OpRecording {
public:
    OpRecording()
        : m_handle(at::addThreadLocalCallback(at::RecordFunctionCallback(onOpStart, onOpEnd)
                                                  .needsInputs(true)
                                                  .needsOutputs(true)
                                                  .scopes({at::RecordScope::FUNCTION})))
    {
        t_collector = &m_collector;
    }
    ~OpRecording()
    {
        at::removeCallback(m_handle);
        t_collector = nullptr;
    }
    OpRecording(const OpRecording &) = delete;
    OpRecording &operator=(const OpRecording &) = delete;
    std::vector<OpRecord> take() { return std::move(m_collector.ops); }

private:
    OpCollector m_collector;
    at::CallbackHandle m_handle;
};

} // namespace

std::vector<OpRecord> recordForwardOps(::torch::jit::Module &module, const std::vector<c10::IValue> &inputs)
{
    OpRecording recording;
    c10::InferenceMode guard;
    module.forward(inputs);
    return recording.take();
}

Result<std::vector<OpRecord>> ModelSession::recordOps()
{
    std::optional<Error> failed;
    std::vector<OpRecord> ops;
    {
        OpRecording recording;
        try {
            // A train-mode model must not meet inference tensors: they cannot be saved for a later
            // backward. Recording needs no gradients either way.
            if (m_impl->mode == RunMode::Inference) {
                c10::InferenceMode guard;
                m_impl->forwardOnly();
            } else {
                at::NoGradGuard guard;
                m_impl->forwardOnly();
            }
        } catch (const c10::Error &error) {
            failed = m_impl->runError(error.what_without_backtrace());
        } catch (const std::exception &error) {
            failed = m_impl->runError(error.what());
        }
        ops = recording.take();
    }
    if (failed)
        return *failed;
    return ops;
}

Result<RecordedProfile> ModelSession::recordProfile(int iterations, int firstStep)
{
    using namespace ::torch::autograd::profiler;
    const profiler::ProfilerConfig config(profiler::ProfilerState::KINETO, /*report_input_shapes=*/true,
                                          /*profile_memory=*/true, /*with_stack=*/false, /*with_flops=*/false,
                                          /*with_modules=*/true);
    const std::set<profiler::ActivityType> activities{profiler::ActivityType::CPU};
    std::optional<Error> failed;
    std::unique_ptr<ProfilerResult> result;
    try {
        prepareProfiler(config, activities);
        enableProfiler(config, activities);
        for (int i = 0; i < iterations && !failed; ++i) {
            at::RecordFunction step(at::RecordScope::USER_SCOPE);
            if (step.isActive())
                step.before("ProfilerStep#" + std::to_string(firstStep + i));
            try {
                m_impl->runOnce();
            } catch (const c10::Error &error) {
                failed = m_impl->runError(error.what_without_backtrace());
            } catch (const std::exception &error) {
                failed = m_impl->runError(error.what());
            }
        }
        result = disableProfiler();
    } catch (const std::exception &error) {
        return Error{m_impl->path.string() + ": the profiler failed: " + cleanTorchMessage(error.what())};
    }
    if (failed)
        return *failed;
    RecordedProfile profile;
    profile.iterations = iterations;
    std::unordered_set<const profiler::Result *> seen;
    for (const auto &root : result->event_tree())
        if (root && root->parent_.expired())
            collect(root, 0, seen, profile);
    for (const auto &event : result->event_tree()) // anything not reached from a root
        collect(event, 0, seen, profile);
    std::sort(profile.ops.begin(), profile.ops.end(), [](const ProfiledOp &a, const ProfiledOp &b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.depth < b.depth;
    });
    std::sort(profile.memory.begin(), profile.memory.end(), [](const MemoryEvent &a, const MemoryEvent &b) { return a.timeNs < b.timeNs; });
    // Without an allocator that reports its total, count it from the profile's start.
    if (std::all_of(profile.memory.begin(), profile.memory.end(), [](const MemoryEvent &e) { return e.totalAllocated == 0; })) {
        std::int64_t total = 0;
        for (auto &event : profile.memory)
            event.totalAllocated = total += event.bytes;
    }
    return profile;
}

} // namespace pyrometer::torch
