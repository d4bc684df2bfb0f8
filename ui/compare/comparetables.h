#pragma once

#include "core/analysis/diff.h"
#include "core/model/layerdelta.h"
#include "core/model/variant.h"
#include "ui/compare/rowtablemodel.h"

#include <QRgb>
#include <QString>
#include <QTableView>

namespace pyrometer::ui {

using VariantsModel = RowTableModel<model::VariantResult>;
using LayerDeltaModel = RowTableModel<model::LayerDelta>;
using TraceDiffModel = RowTableModel<analysis::DiffRow>;

// Variant, latency, p90, speedup, mJ/inference, inferences/J, size, size through zlib,
// weights, MACs, sparsity, accuracy, its change, agreement, max abs diff, relative error, note
// or error.
std::vector<VariantsModel::Column> variantColumns();
// A model with those columns, the sparsity cells' tooltips listing each layer's, the energy
// cells' the machine's figure and its idle draw (energyTooltip).
VariantsModel *makeVariantsModel(QObject *parent = nullptr);
inline constexpr int kEnergyColumn = 4;
inline constexpr int kSparsityColumn = 10;
// The columns of variantColumns() that only data given by the user fills.
inline constexpr int kAccuracyColumn = 11;
inline constexpr int kAccuracyChangeColumn = 12;
inline constexpr int kAgreementColumn = 13;
inline constexpr int kNoteColumn = 16;

// Shows a variants table's notes and errors beside the variants' names, wrapped onto as many
// lines as they take, in a column no wider than a third of the table (or 320 px): a failed variant's
// reason reads where its blank figures are, however many columns follow.
void showNotesBesideNames(QTableView *view);
// Fits the notes' column to the rows just shown (call after setting them).
void fitNoteColumn(QTableView *view);

// An energy figure to a number of decimals, or "unavailable" (the reason is said once,
// beside the table); its value for sorting and export, null when there is none.
QString energyText(const std::optional<double> &value, int decimals = 3);
// "1.42× (1.31–1.55)", "1.02× (0.97–1.08) within noise"; the baseline's 1.00× alone.
QString speedupCell(const model::VariantResult &v);
QVariant optionalValue(const std::optional<double> &value);
// What the energy figures are: "Energy per inference above the machine's idle draw (12.3 W, ...),
// from the RAPL counters (package and DRAM)." (the first idle draw measured), or why unavailable.
QString energySentence(const std::string &unavailable, const std::optional<double> &idleWatts);
// "12.500 mJ above the idle draw; 40.000 mJ for the machine, idle included (idle draw 9.8 W)";
// none without a figure.
QVariant energyTooltip(const std::optional<double> &aboveIdleMj, const std::optional<double> &machineMj,
                       const std::optional<double> &idleWatts);
// Module, type, base ms, variant ms, delta ms, delta %.
std::vector<LayerDeltaModel::Column> layerDeltaColumns();
// Name, base, other, delta (in the preferred time unit; exported in µs), delta % (slower red,
// faster blue), calls, presence (kind: for kernel tables).
std::vector<TraceDiffModel::Column> traceDiffColumns(bool withKind);
// A model with those columns, its deltas coloured and its times exported as base_us, other_us
// and delta_us.
TraceDiffModel *makeTraceDiffModel(bool withKind, QObject *parent = nullptr);

// Shows the accuracy columns where the compare scored data (Top-1 accuracy and its change only
// with labels), hides them otherwise.
void showDataColumns(QTableView *view, const model::CompareReport &report);

// What a compare's figures were measured on, for the line above its table: "Inputs 1x3x32x32,
// as typed. Accuracy on 40 samples of val.pt ... Energy: unavailable: ...".
QString variantsSummary(const model::CompareReport &report, const QString &inputsFrom);

// "+1.20 ms", "−35.0 µs", "0 ns": a change of time in the preferred unit.
QString signedDuration(std::int64_t ns);

// What slower and faster are drawn in, in tables and the diff flame graph's legend.
inline constexpr QRgb kSlowerColour = 0xc0392b;
inline constexpr QRgb kFasterColour = 0x2e6db4;

} // namespace pyrometer::ui
