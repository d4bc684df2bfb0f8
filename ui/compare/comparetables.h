#pragma once

#include "core/analysis/diff.h"
#include "core/torch/layerdelta.h"
#include "core/torch/variant.h"
#include "ui/compare/rowtablemodel.h"

#include <QRgb>
#include <QString>

namespace pyrometer::ui {

using VariantsModel = RowTableModel<torch::VariantResult>;
using LayerDeltaModel = RowTableModel<torch::LayerDelta>;
using TraceDiffModel = RowTableModel<analysis::DiffRow>;

// Variant, latency, p90, speedup, model size, max abs diff, relative error, note or error.
std::vector<VariantsModel::Column> variantColumns();
// Module, type, base ms, variant ms, delta ms, delta %.
std::vector<LayerDeltaModel::Column> layerDeltaColumns();
// Name, base, other, delta (in the preferred time unit; exported in µs), delta % (slower red,
// faster blue), calls, presence (kind: for kernel tables).
std::vector<TraceDiffModel::Column> traceDiffColumns(bool withKind);
// A model with those columns, its deltas coloured and its times exported as base_us, other_us
// and delta_us.
TraceDiffModel *makeTraceDiffModel(bool withKind, QObject *parent = nullptr);

// "+1.20 ms", "−35.0 µs", "0 ns": a change of time in the preferred unit.
QString signedDuration(std::int64_t ns);

// What slower and faster are drawn in, in tables and the diff flame graph's legend.
inline constexpr QRgb kSlowerColour = 0xc0392b;
inline constexpr QRgb kFasterColour = 0x2e6db4;

} // namespace pyrometer::ui
