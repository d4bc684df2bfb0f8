#pragma once

#include "core/analysis/diff.h"
#include "core/torch/layerdelta.h"
#include "core/torch/variant.h"
#include "ui/compare/rowtablemodel.h"

namespace pyrometer::ui {

using VariantsModel = RowTableModel<torch::VariantResult>;
using LayerDeltaModel = RowTableModel<torch::LayerDelta>;
using TraceDiffModel = RowTableModel<analysis::DiffRow>;

// Variant, latency, p90, speedup, model size, max abs diff, relative error, note or error.
std::vector<VariantsModel::Column> variantColumns();
// Module, type, base ms, variant ms, delta ms, delta %.
std::vector<LayerDeltaModel::Column> layerDeltaColumns();
// Name, base µs, other µs, delta µs, delta %, calls, presence (kind: for kernel tables).
std::vector<TraceDiffModel::Column> traceDiffColumns(bool withKind);

} // namespace pyrometer::ui
