#pragma once

#include "core/model/inputspec.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace pyrometer::model {

// Samples to evaluate a model on, saved from Python with torch.save: the inputs (a tensor, or a
// tuple of one tensor per model input, the first dimension counting the samples) and, where
// given, their labels (an int64 tensor of class indices, one per sample).
struct DataFiles {
    std::filesystem::path data;
    std::filesystem::path labels; // empty: none, so only agreement with the baseline is measured
    bool operator==(const DataFiles &) const = default;
};

// How many samples one forward evaluates.
inline constexpr std::int64_t kEvaluationBatch = 32;

// What an Inputs field holds when it names files rather than shapes: "val.pt" or "val.pt,
// val_labels.pt" (an item with a dot or a slash is a file; relative paths are taken against
// base). Nothing when it holds shapes; an Error for more than two files.
Result<std::optional<DataFiles>> dataFilesIn(std::string_view text, const std::filesystem::path &base);

// The share of positions where two equally long lists agree (top-1 predictions against labels
// or against the baseline's predictions); 0 for empty lists.
double top1Agreement(const std::vector<std::int64_t> &predictions, const std::vector<std::int64_t> &reference);

} // namespace pyrometer::model
