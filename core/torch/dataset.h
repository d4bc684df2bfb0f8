#pragma once
// Internal to core/torch's .cpp files: samples saved by torch.save, and a variant's top-1
// predictions on them. Includes libtorch. Never include from a public header.

#include "core/torch/modeltypes.h"
#include "core/util/progress.h"

#include <torch/script.h>

#include <functional>
#include <optional>
#include <string>

namespace pyrometer::torch {

struct VariantModel;

// The input type of a tensor of this element type; nothing for types inputs cannot have.
std::optional<DType> dtypeOf(at::ScalarType type);

struct Dataset {
    std::vector<at::Tensor> inputs; // one per model input, the first dimension counting the samples
    at::Tensor labels;              // int64, one per sample; undefined without labels
    std::int64_t samples = 0;
    std::string dataName;   // the files as the user named them, for messages
    std::string labelsName; // empty without labels

    // Samples [start, start + count) as a model's inputs.
    std::vector<c10::IValue> batch(std::int64_t start, std::int64_t count) const;
    // The shapes and types of a batch of that many samples.
    std::vector<InputSpec> specs(std::int64_t count) const;
};

// Reads and checks the files; an Error names the file and says what is wrong with it (not
// written by torch.save, the legacy format, not tensors, unequal sample counts, labels that
// are not one integer per sample).
Result<Dataset> loadDataset(const DataFiles &files);

// The top-1 class of every sample, forwarding batches of kEvaluationBatch through the variant
// (its adapt() applied); classes receives the number of class scores per sample. tick() after
// each batch. Nothing when stop was requested; throws what libtorch throws, or a
// std::runtime_error when the output is not one row of class scores per sample.
std::optional<std::vector<std::int64_t>> predictTop1(VariantModel &model, const Dataset &data, std::int64_t *classes,
                                                     const StopToken &stop, const std::function<void()> &tick);

// The batches predictTop1 runs over the data.
std::int64_t evaluationBatches(const Dataset &data);

} // namespace pyrometer::torch
