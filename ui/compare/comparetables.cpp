#include "ui/compare/comparetables.h"

#include "core/util/format.h"
#include "ui/shell/preferences.h"

#include <QColor>
#include <QHeaderView>
#include <QObject>

#include <algorithm>
#include <limits>

namespace pyrometer::ui {
namespace {

// The "In" column: where a row was seen, in words.
QString presenceText(analysis::Presence presence)
{
    switch (presence) {
    case analysis::Presence::Both: return QObject::tr("both");
    case analysis::Presence::BaseOnly: return QObject::tr("base only");
    case analysis::Presence::OtherOnly: return QObject::tr("other only");
    }
    return {};
}

QVariant optionalNumber(const std::optional<double> &value, char format, int precision)
{
    return value ? QVariant(QString::number(*value, format, precision)) : QVariant();
}

QString signedMs(double ms)
{
    return (ms > 0 ? QStringLiteral("+") : QString()) + QString::number(ms, 'f', 3);
}

// "+12.5 %", or "new" for a row the base does not have (nothing to divide by).
QString signedPercent(const std::optional<double> &percent)
{
    if (!percent)
        return QObject::tr("new");
    return (*percent > 0 ? QStringLiteral("+") : QString()) + QString::number(*percent, 'f', 1) + QStringLiteral(" %");
}

// Sorts new rows above every increase.
double percentSortKey(const std::optional<double> &percent)
{
    return percent ? *percent : std::numeric_limits<double>::infinity();
}

} // namespace

// Each Conv and Linear layer's share of zero weights, a line each.
QVariant layerSparsityText(const model::VariantResult &v)
{
    if (v.layerSparsity.empty())
        return {};
    QStringList lines;
    for (const auto &layer : v.layerSparsity)
        lines << QObject::tr("%1 (%2): %3 % of %4 weights zero")
                     .arg(QString::fromStdString(layer.module), QString::fromStdString(layer.type))
                     .arg(layer.fraction() * 100, 0, 'f', 1)
                     .arg(layer.weights);
    return lines.join(QLatin1Char('\n'));
}

QString energyText(const std::optional<double> &value, int decimals)
{
    return value ? QString::number(*value, 'f', decimals) : QObject::tr("unavailable");
}

QVariant optionalValue(const std::optional<double> &value)
{
    return value ? QVariant(*value) : QVariant();
}

QString speedupCell(const model::VariantResult &v)
{
    QString text = QString::number(v.speedup, 'f', 2) + QStringLiteral("×");
    if (v.variant.kind == model::VariantKind::Baseline || !v.speedupInterval)
        return text;
    text += QStringLiteral(" (%1–%2)").arg(v.speedupInterval->low, 0, 'f', 2).arg(v.speedupInterval->high, 0, 'f', 2);
    return withinNoise(v.speedupInterval) ? text + QObject::tr(" within noise") : text;
}

std::vector<VariantsModel::Column> variantColumns()
{
    using V = model::VariantResult;
    const auto measured = [](auto figure) { return [figure](const V &v) { return v.ok() ? figure(v) : QVariant(); }; };
    const auto percent = [](const std::optional<double> &fraction) {
        return fraction ? QVariant(QString::number(*fraction * 100, 'f', 1) + QStringLiteral(" %")) : QVariant();
    };
    return {
        {QObject::tr("Variant"), [](const V &v) { return QString::fromStdString(v.name); }, {}, false, {}},
        {QObject::tr("Latency (timed runs, mean ms)"),
         measured([](const V &v) { return QVariant(QString::number(v.latency.mean, 'f', 3)); }),
         measured([](const V &v) { return QVariant(v.latency.mean); }), true,
         QObject::tr("Mean wall time of a forward pass over the timed runs, without the profiler")},
        {QObject::tr("p90 (timed runs, ms)"),
         measured([](const V &v) { return QVariant(QString::number(v.latency.p90, 'f', 3)); }),
         measured([](const V &v) { return QVariant(v.latency.p90); }), true,
         QObject::tr("90th percentile of the timed runs' wall times, without the profiler")},
        {QObject::tr("Speedup (95% CI)"), measured([](const V &v) { return QVariant(speedupCell(v)); }),
         [](const V &v) { return v.speedup; }, true,
         QObject::tr(
             "Baseline latency / this variant's, with its 95% confidence interval from both variants' timed runs "
             "(taken in turns); \"within noise\" when the interval holds 1×: more runs would tell")},
        {QObject::tr("mJ/inference"), measured([](const V &v) { return QVariant(energyText(v.energyMjPerInference)); }),
         [](const V &v) { return optionalValue(v.energyMjPerInference); }, true,
         QObject::tr("Energy per inference (one sample of the batch) over the timed runs, above the machine's idle "
                     "draw, from the RAPL counters (package and DRAM)")},
        {QObject::tr("Inferences/J"),
         measured(
             [](const V &v) { return QVariant(energyText(model::inferencesPerJoule(v.energyMjPerInference), 1)); }),
         [](const V &v) { return optionalValue(model::inferencesPerJoule(v.energyMjPerInference)); },
         true,
         {}},
        {QObject::tr("Size"),
         [](const V &v) {
             return v.modelBytes ? QVariant(QString::fromStdString(formatBytes(std::uint64_t(v.modelBytes))))
                                 : QVariant();
         },
         [](const V &v) { return qint64(v.modelBytes); }, true, QObject::tr("Serialized TorchScript size")},
        {QObject::tr("Size (zlib)"),
         [](const V &v) {
             return v.compressedBytes ? QVariant(QString::fromStdString(formatBytes(std::uint64_t(v.compressedBytes))))
                                      : QVariant();
         },
         [](const V &v) { return qint64(v.compressedBytes); }, true,
         QObject::tr("The serialized model through zlib: what zeroed weights buy")},
        {QObject::tr("Weights"),
         [](const V &v) {
             return v.params ? QVariant(QString::fromStdString(formatCount(std::uint64_t(*v.params)))) : QVariant();
         },
         [](const V &v) { return v.params ? QVariant(qint64(*v.params)) : QVariant(); }, true,
         QObject::tr("Parameters, or the constant and packed weights of a frozen or int8 model")},
        {QObject::tr("MACs"),
         [](const V &v) {
             return v.macs ? QVariant(QString::fromStdString(formatCount(std::uint64_t(*v.macs)))) : QVariant();
         },
         [](const V &v) { return optionalValue(v.macs); }, true,
         QObject::tr("Multiply-accumulates of one forward pass on these inputs")},
        {QObject::tr("Sparsity"), [percent](const V &v) { return percent(v.sparsity); },
         [](const V &v) { return optionalValue(v.sparsity); }, true,
         QObject::tr("Zero weights in Conv and Linear layers (none shown where the weights are frozen constants or "
                     "packed int8); each layer's in the cell's tooltip")},
        {QObject::tr("Top-1 accuracy"), [percent](const V &v) { return percent(v.accuracy); },
         [](const V &v) { return optionalValue(v.accuracy); }, true,
         QObject::tr("Against the labels given with the data")},
        {QObject::tr("Δ accuracy"),
         [](const V &v) {
             return v.accuracyChange ? QVariant((*v.accuracyChange > 0 ? QStringLiteral("+") : QString()) +
                                                QString::number(*v.accuracyChange, 'f', 1) + QObject::tr(" pt"))
                                     : QVariant();
         },
         [](const V &v) { return optionalValue(v.accuracyChange); }, true,
         QObject::tr("Top-1 accuracy minus the baseline's, in percentage points")},
        {QObject::tr("Agreement"), [percent](const V &v) { return percent(v.agreement); },
         [](const V &v) { return optionalValue(v.agreement); }, true,
         QObject::tr("Samples whose top-1 prediction is the baseline's")},
        {QObject::tr("Max |diff|"), [](const V &v) { return optionalNumber(v.maxAbsDiff, 'g', 3); },
         [](const V &v) { return v.maxAbsDiff ? QVariant(*v.maxAbsDiff) : QVariant(); }, true,
         QObject::tr("Largest absolute difference of the outputs from the baseline's, same inputs")},
        {QObject::tr("Rel. error"), [](const V &v) { return optionalNumber(v.relativeError, 'g', 3); },
         [](const V &v) { return v.relativeError ? QVariant(*v.relativeError) : QVariant(); }, true,
         QObject::tr("‖output − baseline‖ / ‖baseline‖")},
        {QObject::tr("Note or error"),
         [](const V &v) {
             return QString::fromStdString(v.ok() ? v.note : QObject::tr("failed: ").toStdString() + v.error);
         },
         {},
         false,
         {}},
    };
}

void showNotesBesideNames(QTableView *view)
{
    auto *header = view->horizontalHeader();
    header->moveSection(header->visualIndex(kNoteColumn), 1);
    header->setSectionResizeMode(kNoteColumn, QHeaderView::Interactive);
    header->setStretchLastSection(false);
    view->setWordWrap(true);
    view->setTextElideMode(Qt::ElideNone);
    view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void fitNoteColumn(QTableView *view)
{
    const int title = view->horizontalHeader()->sectionSizeHint(kNoteColumn);
    const int text = static_cast<QAbstractItemView *>(view)->sizeHintForColumn(kNoteColumn);
    const int most = std::max({title, view->viewport()->width() / 3, 320});
    view->setColumnWidth(kNoteColumn, std::min(std::max(text, title), most));
}

void showDataColumns(QTableView *view, const model::CompareReport &report)
{
    const bool data = !report.dataNote.empty();
    const bool labels = data && !report.rows.empty() && report.rows.front().accuracy.has_value();
    view->setColumnHidden(kAccuracyColumn, !labels);
    view->setColumnHidden(kAccuracyChangeColumn, !labels);
    view->setColumnHidden(kAgreementColumn, !data);
}

QString energySentence(const std::string &unavailable, const std::optional<double> &idleWatts)
{
    if (!unavailable.empty())
        return QObject::tr("Energy: unavailable: %1").arg(QString::fromStdString(unavailable));
    return QObject::tr("Energy per inference above the machine's idle draw (%1, measured over a wait before the "
                       "timed runs), from the RAPL counters (package and DRAM); the machine's figure, idle included, "
                       "is in each cell's tooltip.")
        .arg(idleWatts ? QObject::tr("%1 W").arg(*idleWatts, 0, 'f', 1) : QObject::tr("not measured"));
}

QVariant energyTooltip(const std::optional<double> &aboveIdleMj, const std::optional<double> &machineMj,
                       const std::optional<double> &idleWatts)
{
    if (!aboveIdleMj || !machineMj || !idleWatts)
        return {};
    return QObject::tr("%1 mJ above the idle draw; %2 mJ for the machine, idle and other processes included (idle "
                       "draw %3 W)")
        .arg(*aboveIdleMj, 0, 'f', 3)
        .arg(*machineMj, 0, 'f', 3)
        .arg(*idleWatts, 0, 'f', 1);
}

QString variantsSummary(const model::CompareReport &report, const QString &inputsFrom)
{
    QString text =
        QObject::tr("Inputs %1, %2.").arg(QString::fromStdString(model::formatInputSpecs(report.inputs)), inputsFrom);
    if (!report.dataNote.empty())
        text += QLatin1Char(' ') + QObject::tr("Accuracy on %1.").arg(QString::fromStdString(report.dataNote));
    std::optional<double> idleWatts;
    for (const auto &row : report.rows)
        if (!idleWatts)
            idleWatts = row.idlePowerW;
    text += QLatin1Char(' ') + energySentence(report.energyUnavailable, idleWatts);
    return text;
}

VariantsModel *makeVariantsModel(QObject *parent)
{
    auto *model = new VariantsModel(variantColumns(), parent);
    model->setCellTooltip(kSparsityColumn, layerSparsityText);
    model->setCellTooltip(kEnergyColumn, [](const model::VariantResult &v) {
        return energyTooltip(v.energyMjPerInference, v.machineEnergyMjPerInference, v.idlePowerW);
    });
    return model;
}

std::vector<LayerDeltaModel::Column> layerDeltaColumns()
{
    using D = model::LayerDelta;
    const QString profiledTip = QObject::tr("Time in the layer per forward pass, under the profiler (its overhead included): the "
                                             "mean of the profiled runs, not the timed runs' latency");
    return {
        {QObject::tr("Module"), [](const D &d) { return d.module.empty() ? QObject::tr("(model)") : QString::fromStdString(d.module); }, {}, false, {}},
        {QObject::tr("Type"), [](const D &d) { return QString::fromStdString(d.type); }, {}, false, {}},
        {QObject::tr("Baseline forward (profiled runs, ms)"),
         [](const D &d) { return d.inBase ? QVariant(QString::number(d.baseMs, 'f', 3)) : QVariant(QObject::tr("—")); },
         [](const D &d) { return d.baseMs; }, true, profiledTip},
        {QObject::tr("Variant forward (profiled runs, ms)"),
         [](const D &d) { return d.inOther ? QVariant(QString::number(d.otherMs, 'f', 3)) : QVariant(QObject::tr("—")); },
         [](const D &d) { return d.otherMs; }, true, profiledTip},
        {QObject::tr("Delta (ms)"), [](const D &d) { return signedMs(d.deltaMs); }, [](const D &d) { return d.deltaMs; }, true, {}},
        {QObject::tr("Delta %"), [](const D &d) { return signedPercent(d.deltaPercent); },
         [](const D &d) { return percentSortKey(d.deltaPercent); }, true, {}},
    };
}

std::vector<TraceDiffModel::Column> traceDiffColumns(bool withKind)
{
    using R = analysis::DiffRow;
    const auto us = [](std::int64_t ns) { return double(ns) / 1000.0; };
    std::vector<TraceDiffModel::Column> columns;
    if (withKind)
        columns.push_back({QObject::tr("Kind"), [](const R &r) { return QString::fromStdString(r.kind); }, {}, false, {}});
    columns.push_back({QObject::tr("Name"), [](const R &r) { return QString::fromStdString(r.name); }, {}, false, {}});
    columns.push_back({QObject::tr("Base"), [](const R &r) { return displayDuration(r.baseNs); },
                       [us](const R &r) { return us(r.baseNs); }, true, QObject::tr("Time in the base trace")});
    columns.push_back({QObject::tr("Other"), [](const R &r) { return displayDuration(r.otherNs); },
                       [us](const R &r) { return us(r.otherNs); }, true, QObject::tr("Time in the other trace")});
    columns.push_back({QObject::tr("Delta"), [](const R &r) { return signedDuration(r.deltaNs()); },
                       [us](const R &r) { return us(r.deltaNs()); }, true, QObject::tr("Other minus base")});
    columns.push_back({QObject::tr("Delta %"), [](const R &r) { return signedPercent(r.deltaPercent()); },
                       [](const R &r) { return percentSortKey(r.deltaPercent()); }, true, {}});
    columns.push_back({QObject::tr("Calls"), [](const R &r) { return QStringLiteral("%1 → %2").arg(r.baseCalls).arg(r.otherCalls); },
                       [](const R &r) { return qint64(r.otherCalls) - qint64(r.baseCalls); }, true, {}});
    columns.push_back({QObject::tr("In"), [](const R &r) { return presenceText(r.presence); }, {}, false, {}});
    return columns;
}

TraceDiffModel *makeTraceDiffModel(bool withKind, QObject *parent)
{
    using R = analysis::DiffRow;
    auto *model = new TraceDiffModel(traceDiffColumns(withKind), parent);
    const int base = withKind ? 2 : 1;
    // Slower red, faster blue, as the diff flame graph colours them.
    const auto deltaColour = [](const R &r) -> QVariant {
        if (r.deltaNs() == 0)
            return {};
        return QColor(r.deltaNs() > 0 ? kSlowerColour : kFasterColour);
    };
    model->setForeground(base + 2, deltaColour);
    model->setForeground(base + 3, deltaColour);
    model->setExportTitle(base, QStringLiteral("base_us"));
    model->setExportTitle(base + 1, QStringLiteral("other_us"));
    model->setExportTitle(base + 2, QStringLiteral("delta_us"));
    return model;
}

QString signedDuration(std::int64_t ns)
{
    const QString sign = ns > 0 ? QStringLiteral("+") : ns < 0 ? QStringLiteral("\u2212") : QString();
    return sign + displayDuration(ns < 0 ? -ns : ns);
}

} // namespace pyrometer::ui
