// Recording what a forward pass runs: RecordFunction callbacks give every top-level op with its
// arguments and outputs, for FLOPs. (Timings, shapes, memory and modules: profilecollector.cpp.)

#include "core/torch/sessionimpl.h"
#include "core/torch/torcherror.h"

#include <ATen/record_function.h>
#include <torch/csrc/jit/runtime/interpreter.h>

namespace pyrometer::torch {
namespace {

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
        if (tensor.defined()) {
            arg.values = tensor.sizes().vec();
            arg.elementBytes = int(tensor.element_size());
            const auto dtype = tensor.dtype().name();
            arg.dtype.assign(dtype.data(), dtype.size());
        } else
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
                    const auto &weight = unpacked.toTupleRef().elements()[0].toTensor();
                    arg.values = weight.sizes().vec();
                    arg.elementBytes = int(weight.element_size());
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
        failed = m_impl->guarded([&] {
            // A train-mode model must not meet inference tensors: they cannot be saved for a later
            // backward. Recording needs no gradients either way.
            if (m_impl->mode == RunMode::Inference) {
                c10::InferenceMode guard;
                m_impl->forwardOnly();
            } else {
                at::NoGradGuard guard;
                m_impl->forwardOnly();
            }
        });
        ops = recording.take();
    }
    if (failed)
        return *failed;
    return ops;
}

} // namespace pyrometer::torch
