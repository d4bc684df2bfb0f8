// Loading a TorchScript model, making its inputs and running it: one of the few translation
// units that include libtorch (with modelfile.cpp and oprecorder.cpp).
#include "core/torch/session.h"

#include "core/torch/dataset.h"
#include "core/torch/modelfile.h"
#include "core/torch/sessionimpl.h"
#include "core/torch/torcherror.h"

#include <ATen/Parallel.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/autograd/autograd.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>
#include <string_view>
#include <system_error>
#include <vector>

namespace pyrometer::torch {
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kSeed = 20240611;

c10::ScalarType scalarType(DType dtype)
{
    switch (dtype) {
    case DType::Float32: return c10::kFloat;
    case DType::Float64: return c10::kDouble;
    case DType::Float16: return c10::kHalf;
    case DType::BFloat16: return c10::kBFloat16;
    case DType::Int64: return c10::kLong;
    case DType::Int32: return c10::kInt;
    case DType::Int16: return c10::kShort;
    case DType::Int8: return c10::kChar;
    case DType::UInt8: return c10::kByte;
    case DType::Bool: return c10::kBool;
    }
    return c10::kFloat;
}

bool isFloating(DType dtype)
{
    return dtype == DType::Float32 || dtype == DType::Float64 || dtype == DType::Float16 || dtype == DType::BFloat16;
}

} // namespace

std::vector<c10::IValue> makeInputs(const std::vector<InputSpec> &specs, std::uint64_t salt)
{
    auto generator = at::detail::createCPUGenerator(kSeed + salt);
    std::vector<c10::IValue> inputs;
    for (const auto &spec : specs) {
        at::Tensor tensor;
        if (isFloating(spec.dtype))
            tensor = at::randn(spec.shape, generator, at::TensorOptions().dtype(c10::kFloat)).to(scalarType(spec.dtype));
        else // 0 or 1: valid as indices into any embedding, as class ids, as masks
            tensor = at::randint(0, 2, spec.shape, generator, at::TensorOptions().dtype(c10::kLong)).to(scalarType(spec.dtype));
        inputs.emplace_back(std::move(tensor));
    }
    return inputs;
}

namespace {

void addLoss(const c10::IValue &value, at::Tensor &loss)
{
    if (value.isTensor()) {
        const auto &tensor = value.toTensor();
        if (tensor.defined() && tensor.is_floating_point() && tensor.requires_grad())
            loss = loss.defined() ? loss + tensor.sum() : tensor.sum();
    } else if (value.isTuple()) {
        for (const auto &element : value.toTupleRef().elements())
            addLoss(element, loss);
    } else if (value.isList()) {
        for (const auto &element : value.toListRef())
            addLoss(element, loss);
    } else if (value.isGenericDict()) {
        for (const auto &entry : value.toGenericDict())
            addLoss(entry.value(), loss);
    }
}

// The forward schema's parameters that the caller must give (no default), without self.
std::vector<std::string> requiredInputs(const ::torch::jit::Module &module, std::string *schemaText)
{
    std::vector<std::string> names;
    const auto method = module.find_method("forward");
    if (!method)
        return names;
    const auto &schema = method->function().getSchema();
    std::ostringstream text;
    text << schema;
    *schemaText = text.str();
    for (std::size_t i = 1; i < schema.arguments().size(); ++i)
        if (!schema.arguments()[i].default_value())
            names.push_back(schema.arguments()[i].name());
    return names;
}

} // namespace

void ModelSession::Impl::forwardOnly()
{
    module.forward(inputs);
}

void ModelSession::Impl::runOnce()
{
    if (mode == RunMode::Inference) {
        c10::InferenceMode guard;
        module.forward(inputs);
        return;
    }
    at::AutoGradMode grad(true);
    for (auto parameter : module.parameters())
        parameter.mutable_grad() = at::Tensor(); // as optimizer.zero_grad(set_to_none=True)
    at::Tensor loss;
    addLoss(module.forward(inputs), loss);
    if (loss.defined())
        loss.backward();
}

Error ModelSession::Impl::runError(const std::string &what) const
{
    return Error{path.string() + ": the model rejected its inputs " + formatInputSpecs(specs) + ": " + cleanTorchMessage(what)};
}

namespace {

// Whether a pickle is sound enough for libtorch's unpickler, which trusts it (as of 1.13): it
// allocates the length an opcode gives before reading it (a 250-byte traced_inputs.pkl asked for
// 3 GB), pops its stack and its marks without looking (a 5-byte one corrupted the heap) and
// grows its memo to any index (a LONG_BINPUT of 2^28 ran for over 10 s). So the pickle is walked
// first: every argument within its bytes, no pop below the stack's bottom or the last mark, memo
// indices put before they are got and below the pickle's size, objects nested no deeper than
// kMaxPickleDepth (their destructors recurse), and a STOP.
bool pickleIsSound(std::string_view pickle)
{
    constexpr int kMaxPickleDepth = 64;
    std::vector<int> stack; // per item, how deep the objects in it nest
    std::vector<std::size_t> marks;
    std::map<std::uint64_t, int> memo;
    std::size_t at = 0;
    const auto bottom = [&] { return marks.empty() ? std::size_t(0) : marks.back(); };
    // Pops n items above the last mark, keeping the deepest nesting among them.
    const auto pop = [&](std::size_t n, int &deepest) {
        if (stack.size() < bottom() + n)
            return false;
        for (std::size_t i = 0; i < n; ++i) {
            deepest = std::max(deepest, stack.back());
            stack.pop_back();
        }
        return true;
    };
    const auto popMark = [&](int &deepest) {
        if (marks.empty())
            return false;
        const auto n = stack.size() - marks.back();
        marks.pop_back();
        for (std::size_t i = 0; i < n; ++i) {
            deepest = std::max(deepest, stack.back());
            stack.pop_back();
        }
        return true;
    };
    const auto push = [&](int depth) {
        stack.push_back(depth);
        return depth <= kMaxPickleDepth;
    };
    const auto skip = [&](std::uint64_t n) {
        if (n > pickle.size() - at)
            return false;
        at += n;
        return true;
    };
    const auto number = [&](int bytes, std::uint64_t &value) { // little-endian, unsigned
        if (!skip(std::uint64_t(bytes)))
            return false;
        value = 0;
        for (int i = 1; i <= bytes; ++i)
            value = value << 8 | std::uint8_t(pickle[at - std::size_t(i)]);
        return true;
    };
    const auto line = [&] {
        const auto end = pickle.find('\n', at);
        return end != std::string_view::npos && skip(end + 1 - at);
    };
    std::uint64_t value = 0;
    while (at < pickle.size()) {
        const auto op = std::uint8_t(pickle[at++]);
        int deepest = 0;
        bool ok = true;
        switch (op) {
        case '.': // STOP
            return pop(1, deepest);
        case '(': marks.push_back(stack.size()); break;
        case '0': ok = pop(1, deepest); break;
        case '1': ok = popMark(deepest); break;
        case '2': ok = pop(1, deepest) && push(deepest) && push(deepest); break;
        // PROTO, FRAME: no item.
        case 0x80: ok = skip(1); break;
        case 0x95: ok = skip(8); break;
        // A scalar, an empty container or a global: one item, after an argument of a few bytes,
        // a line or two, or as many bytes as a length says.
        case 'N':
        case ')':
        case ']':
        case '}':
        case 0x88:
        case 0x89:
        case 0x8f: ok = push(0); break;
        case 'K':
        case 0x82: ok = skip(1) && push(0); break;
        case 'M':
        case 0x83: ok = skip(2) && push(0); break;
        case 'J':
        case 0x84: ok = skip(4) && push(0); break;
        case 'G': ok = skip(8) && push(0); break;
        case 'F':
        case 'I':
        case 'L':
        case 'P':
        case 'S':
        case 'V': ok = line() && push(0); break;
        case 'c': ok = line() && line() && push(0); break;
        case 'C':
        case 'U':
        case 0x8a:
        case 0x8c: ok = number(1, value) && skip(value) && push(0); break;
        case 'B':
        case 'T':
        case 'X':
        case 0x8b: ok = number(4, value) && skip(value) && push(0); break;
        case 0x8d:
        case 0x8e: ok = number(8, value) && skip(value) && push(0); break;
        // The memo: put the top item, get one put before.
        case 'g':
        case 'h':
        case 'j':
        case 'p':
        case 'q':
        case 'r':
        case 0x94: {
            if (op == 'q' || op == 'h') {
                ok = number(1, value);
            } else if (op == 'r' || op == 'j') {
                ok = number(4, value);
            } else if (op == 'p' || op == 'g') {
                const auto start = at;
                ok = line() && std::from_chars(pickle.data() + start, pickle.data() + at - 1, value).ec == std::errc();
            } else {
                value = memo.size();
            }
            if (!ok || value >= pickle.size())
                return false;
            if (op == 'g' || op == 'h' || op == 'j') {
                const auto found = memo.find(value);
                ok = found != memo.end() && push(found->second);
            } else {
                ok = stack.size() > bottom();
                if (ok)
                    memo[value] = stack.back();
            }
            break;
        }
        // BINPERSID: a storage for its id.
        case 'Q': ok = pop(1, deepest) && push(deepest); break;
        // Objects of the items they take: tuples, lists, dicts, reductions, new objects.
        case 0x85: ok = pop(1, deepest) && push(deepest + 1); break;
        case 'R':
        case 0x81:
        case 0x86:
        case 0x93: ok = pop(2, deepest) && push(deepest + 1); break;
        case 0x87:
        case 0x92: ok = pop(3, deepest) && push(deepest + 1); break;
        case 'l':
        case 't':
        case 0x91: ok = popMark(deepest) && push(deepest + 1); break;
        case 'd': ok = (stack.size() - bottom()) % 2 == 0 && popMark(deepest) && push(deepest + 1); break;
        case 'i': ok = line() && line() && popMark(deepest) && push(deepest + 1); break;
        case 'o': ok = stack.size() > bottom() && popMark(deepest) && push(deepest + 1); break;
        // Into the container below them: it nests as deep as what it holds, plus one.
        case 'a':
        case 'b': ok = pop(1, deepest) && stack.size() > bottom(); break;
        case 's': ok = pop(2, deepest) && stack.size() > bottom(); break;
        case 'e':
        case 0x90: ok = popMark(deepest) && stack.size() > bottom(); break;
        case 'u': ok = (stack.size() - bottom()) % 2 == 0 && popMark(deepest) && stack.size() > bottom(); break;
        default: return false;
        }
        if (!ok)
            return false;
        if (op == 'a' || op == 'b' || op == 's' || op == 'e' || op == 0x90 || op == 'u') {
            stack.back() = std::max(stack.back(), deepest + 1);
            if (stack.back() > kMaxPickleDepth)
                return false;
        }
    }
    return false; // no STOP
}

// The inputs torch.jit.trace of torch 2.x keeps in the archive (traced_inputs.pkl, a dict of
// method name to its argument list), as a spec; empty when they are not all tensors of types an
// input can have. Unpickled the way libtorch reads its own archives, so any libtorch reads it.
std::string tracedInputSpec(caffe2::serialize::PyTorchStreamReader &reader)
{
    {
        const auto [data, size] = reader.getRecord("traced_inputs.pkl");
        if (!pickleIsSound(std::string_view(static_cast<const char *>(data.get()), size)))
            return {};
    }
    const auto value = ::torch::jit::readArchiveAndTensors("traced_inputs", "", "", c10::nullopt, c10::nullopt, c10::kCPU, reader);
    if (!value.isGenericDict())
        return {};
    const auto methods = value.toGenericDict();
    const auto forward = methods.find(c10::IValue(std::string("forward")));
    if (forward == methods.end() || !forward->value().isList())
        return {};
    std::vector<InputSpec> specs;
    for (const auto &argument : forward->value().toListRef()) {
        if (!argument.isTensor())
            return {};
        const auto &tensor = argument.toTensor();
        const auto dtype = dtypeOf(tensor.scalar_type());
        if (!dtype)
            return {};
        specs.push_back({tensor.sizes().vec(), *dtype, false});
    }
    return specs.empty() ? std::string() : formatInputSpecs(specs);
}

bool hasRecordEndingIn(caffe2::serialize::PyTorchStreamReader &reader, std::string_view suffix)
{
    for (const auto &name : reader.getAllRecords())
        if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            return true;
    return false;
}

} // namespace

std::string recordedInputSpec(const fs::path &path)
{
    try {
        caffe2::serialize::PyTorchStreamReader reader(path.string());
        for (const char *name : {"extra/example_inputs.txt", "extra/example_inputs"}) {
            if (!reader.hasRecord(name))
                continue;
            auto [data, size] = reader.getRecord(name);
            std::string text(static_cast<const char *>(data.get()), size);
            while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
                text.pop_back();
            return text;
        }
        if (hasRecordEndingIn(reader, "traced_inputs.pkl"))
            return tracedInputSpec(reader);
    } catch (const std::exception &) {
    }
    return {};
}

Result<std::vector<InputSpec>> givenOrRecordedInputs(const fs::path &path, std::vector<InputSpec> given)
{
    if (!given.empty())
        return given;
    auto parsed = parseInputSpecs(recordedInputSpec(path));
    if (!parsed.ok())
        return Error{path.string() + ": no input shapes given and the model records none; " + std::string(kGiveInputsHint)};
    return std::move(parsed).value();
}

ModelSession::ModelSession(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
ModelSession::~ModelSession()
{
    if (m_impl && m_impl->threadsBefore > 0 && at::get_num_threads() != m_impl->threadsBefore)
        at::set_num_threads(m_impl->threadsBefore);
}

Result<std::unique_ptr<ModelSession>> ModelSession::open(const fs::path &path, std::vector<InputSpec> inputs, RunMode mode, int threads)
{
    // inspectModel gives the refusals their wording (what the file is, how to export).
    {
        auto info = inspectModel(path);
        if (!info.ok())
            return info.error();
    }
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->mode = mode;
    try {
        impl->module = ::torch::jit::load(path.string(), ::torch::kCPU);
    } catch (const std::exception &error) {
        return Error{path.string() + ": libtorch cannot load it: " + cleanTorchMessage(error.what())};
    }
    std::string schema;
    const auto required = requiredInputs(impl->module, &schema);
    if (inputs.empty()) {
        const auto recorded = recordedInputSpec(path);
        if (recorded.empty())
            return Error{path.string() + ": no input shapes given and the model records none; " + std::string(kGiveInputsHint) +
                         " (one per input of " + schema + ")"};
        auto parsed = parseInputSpecs(recorded);
        if (!parsed.ok())
            return Error{path.string() + ": its recorded example inputs are unreadable: " + parsed.error().message};
        inputs = std::move(parsed).value();
    }
    if (inputs.size() < required.size() || (!schema.empty() && inputs.size() > required.size() && schema.find('=') == std::string::npos &&
                                           schema.find("*") == std::string::npos)) {
        return Error{path.string() + ": " + std::to_string(inputs.size()) + (inputs.size() == 1 ? " input" : " inputs") + " given, but " +
                     schema + " takes " + std::to_string(required.size())};
    }
    impl->specs = inputs;
    impl->inputs = makeInputs(inputs);
    impl->module.train(mode == RunMode::Train);
    if (threads > 0 && threads != at::get_num_threads()) {
        impl->threadsBefore = at::get_num_threads();
        at::set_num_threads(threads);
    }
    return std::unique_ptr<ModelSession>(new ModelSession(std::move(impl)));
}

const fs::path &ModelSession::path() const
{
    return m_impl->path;
}

const std::vector<InputSpec> &ModelSession::inputs() const
{
    return m_impl->specs;
}

RunMode ModelSession::mode() const
{
    return m_impl->mode;
}

int ModelSession::threads() const
{
    return at::get_num_threads();
}

std::optional<Error> ModelSession::run()
{
    return m_impl->guarded([&] { m_impl->runOnce(); });
}

} // namespace pyrometer::torch
