// Samples and labels saved by torch.save, read through libtorch's unpickler, and the top-1
// predictions of a variant on them. Includes libtorch.
#include "core/torch/dataset.h"

#include "core/torch/datainputs.h"

#include "core/torch/torcherror.h"
#include "core/torch/variantmodel.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace pyrometer::torch {
namespace {

constexpr const char *kSaveHint =
    "save it with torch.save(tensor, path), or torch.save((a, b), path) for a model of two inputs";

std::string shapeText(at::IntArrayRef sizes)
{
    std::string text;
    for (const auto size : sizes)
        text += (text.empty() ? "" : "x") + std::to_string(size);
    return text.empty() ? "a scalar" : text;
}

} // namespace

std::optional<DType> dtypeOf(at::ScalarType type)
{
    switch (type) {
    case at::kFloat: return DType::Float32;
    case at::kDouble: return DType::Float64;
    case at::kHalf: return DType::Float16;
    case at::kBFloat16: return DType::BFloat16;
    case at::kLong: return DType::Int64;
    case at::kInt: return DType::Int32;
    case at::kShort: return DType::Int16;
    case at::kChar: return DType::Int8;
    case at::kByte: return DType::UInt8;
    case at::kBool: return DType::Bool;
    default: return std::nullopt;
    }
}

namespace {

// What a file holds, unpickled; an Error names it and what it is instead.
Result<c10::IValue> readSaved(const std::filesystem::path &path, const std::string &name)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{name + ": " + (std::filesystem::exists(path) ? "cannot be read" : "no such file")};
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.empty())
        return Error{name + ": the file is empty"};
    if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x80 && static_cast<unsigned char>(bytes[1]) <= 5)
        return Error{
            name +
            ": written in torch.save's legacy format (_use_new_zipfile_serialization=False), which libtorch cannot "
            "read; save it again with torch.save's default format"};
    if (bytes.size() < 4 || bytes[0] != 'P' || bytes[1] != 'K' || bytes[2] != 3 || bytes[3] != 4)
        return Error{name + ": not a file torch.save writes (not a zip archive); " + kSaveHint};
    try {
        caffe2::serialize::PyTorchStreamReader reader(path.string());
        if (reader.hasRecord("constants.pkl"))
            return Error{name + ": a TorchScript model, not data; " + kSaveHint};
        if (!reader.hasRecord("data.pkl"))
            return Error{name + ": a zip archive, but not one torch.save writes; " + kSaveHint};
        return ::torch::jit::pickle_load(bytes);
    } catch (const c10::Error &error) {
        const std::string what = error.what_without_backtrace();
        if (what.find("Unknown opcode") != std::string::npos)
            return Error{name +
                         ": holds something libtorch's unpickler cannot read (a dict, or another Python object); " +
                         kSaveHint};
        return Error{name +
                     ": cannot be read as torch.save data: " + cleanTorchMessage(error.what_without_backtrace())};
    } catch (const std::exception &error) {
        return Error{name + ": cannot be read as torch.save data: " + cleanTorchMessage(error.what())};
    }
}

std::string kindOf(const c10::IValue &value)
{
    if (value.isGenericDict())
        return "a dict";
    if (value.isTuple())
        return "a tuple";
    if (value.isList())
        return "a list";
    if (value.isTensor())
        return "a tensor";
    return "a " + value.tagKind();
}

} // namespace

std::vector<c10::IValue> Dataset::batch(std::int64_t start, std::int64_t count) const
{
    std::vector<c10::IValue> values;
    for (const auto &input : inputs)
        values.emplace_back(input.narrow(0, start, count));
    return values;
}

std::vector<InputSpec> Dataset::specs(std::int64_t count) const
{
    std::vector<InputSpec> result;
    for (const auto &input : inputs) {
        InputSpec spec;
        spec.shape = input.sizes().vec();
        spec.shape.front() = count;
        spec.dtype = dtypeOf(input.scalar_type()).value_or(DType::Float32);
        result.push_back(std::move(spec));
    }
    return result;
}

Result<Dataset> loadDataset(const DataFiles &files)
{
    Dataset data;
    data.dataName = files.data.string();
    auto saved = readSaved(files.data, data.dataName);
    if (!saved.ok())
        return saved.error();
    const auto &value = saved.value();
    if (value.isTensor()) {
        data.inputs.push_back(value.toTensor());
    } else if (value.isTuple() || value.isList()) {
        const auto elements = value.isTuple() ? value.toTupleRef().elements().vec() : value.toListRef().vec();
        for (const auto &element : elements) {
            if (!element.isTensor())
                return Error{data.dataName + ": holds " + kindOf(value) + " with " + kindOf(element) + " in it; " +
                             kSaveHint};
            data.inputs.push_back(element.toTensor());
        }
    } else {
        return Error{data.dataName + ": holds " + kindOf(value) + "; " + kSaveHint};
    }
    if (data.inputs.empty())
        return Error{data.dataName + ": holds no tensor; " + kSaveHint};
    for (auto &input : data.inputs) {
        if (input.dim() == 0)
            return Error{data.dataName + ": holds a scalar, not samples (the first dimension counts the samples)"};
        if (!dtypeOf(input.scalar_type()))
            return Error{data.dataName + ": holds a tensor of " + std::string(c10::toString(input.scalar_type())) +
                         ", which Pyrometer does not feed to models"};
        input = input.detach().to(at::kCPU).contiguous();
    }
    data.samples = data.inputs.front().size(0);
    for (const auto &input : data.inputs)
        if (input.size(0) != data.samples)
            return Error{data.dataName + ": its tensors hold " + std::to_string(data.samples) + " and " +
                         std::to_string(input.size(0)) +
                         " samples; every input needs the same number (the first dimension)"};
    if (data.samples == 0)
        return Error{data.dataName + ": holds no samples (its first dimension is 0)"};
    if (files.labels.empty())
        return data;

    data.labelsName = files.labels.string();
    auto labels = readSaved(files.labels, data.labelsName);
    if (!labels.ok())
        return labels.error();
    if (!labels->isTensor())
        return Error{data.labelsName + ": holds " + kindOf(labels.value()) +
                     "; save the labels as one int64 tensor of class indices"};
    const auto tensor = labels->toTensor();
    if (tensor.is_floating_point() || tensor.is_complex() || tensor.scalar_type() == at::kBool)
        return Error{data.labelsName + ": labels must be an int64 tensor of class indices, not " +
                     std::string(c10::toString(tensor.scalar_type()))};
    if (tensor.dim() != 1)
        return Error{data.labelsName + ": labels must be one class index per sample (a tensor of shape N), not " +
                     shapeText(tensor.sizes())};
    if (tensor.size(0) != data.samples)
        return Error{data.labelsName + ": " + std::to_string(tensor.size(0)) + " labels for the " +
                     std::to_string(data.samples) + " samples of " + data.dataName};
    data.labels = tensor.to(at::kLong).contiguous();
    return data;
}

Result<std::vector<InputSpec>> inputsOfData(const std::filesystem::path &path, BatchDim batch)
{
    auto data = loadDataset({path, {}});
    if (!data.ok())
        return data.error();
    auto specs = data->specs(std::min(kEvaluationBatch, data->samples));
    if (batch == BatchDim::Swept)
        for (auto &spec : specs) {
            spec.shape.front() = 1;
            spec.sweptBatch = true;
        }
    return specs;
}

std::int64_t evaluationBatches(const Dataset &data)
{
    return (data.samples + kEvaluationBatch - 1) / kEvaluationBatch;
}

std::optional<std::vector<std::int64_t>> predictTop1(VariantModel &model, const Dataset &data, std::int64_t *classes,
                                                     const StopToken &stop, const std::function<void()> &tick)
{
    std::vector<std::int64_t> predictions;
    predictions.reserve(std::size_t(data.samples));
    ThreadCountScope threads(model.threads);
    for (std::int64_t start = 0; start < data.samples; start += kEvaluationBatch) {
        if (stop.stopRequested())
            return std::nullopt;
        const auto count = std::min(kEvaluationBatch, data.samples - start);
        auto output = model.forward(model.adapt(data.batch(start, count)));
        while (output.isTuple() || output.isList()) { // the first of several outputs: the scores
            const auto elements = output.isTuple() ? output.toTupleRef().elements().vec() : output.toListRef().vec();
            if (elements.empty())
                break;
            output = elements.front();
        }
        if (!output.isTensor())
            throw std::runtime_error("its output is not a tensor of class scores");
        auto scores = output.toTensor();
        if (scores.is_quantized())
            scores = scores.dequantize();
        if (scores.dim() != 2 || scores.size(0) != count)
            throw std::runtime_error("its output for a batch of " + std::to_string(count) + " is " +
                                     shapeText(scores.sizes()) + ", not one row of class scores per sample (" +
                                     std::to_string(count) + "xCLASSES)");
        *classes = scores.size(1);
        const auto top = scores.to(at::kFloat).argmax(1).contiguous();
        const auto *values = top.data_ptr<std::int64_t>();
        predictions.insert(predictions.end(), values, values + count);
        tick();
    }
    return predictions;
}

} // namespace pyrometer::torch
