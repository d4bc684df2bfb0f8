#include "ui/compare/comparetables.h"

#include "core/util/format.h"
#include "ui/shell/preferences.h"

#include <QColor>
#include <QObject>

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

std::vector<VariantsModel::Column> variantColumns()
{
    using V = torch::VariantResult;
    return {
        {QObject::tr("Variant"), [](const V &v) { return QString::fromStdString(v.name); }, {}, false, {}},
        {QObject::tr("Latency (timed runs, mean ms)"),
         [](const V &v) { return v.ok() ? QVariant(QString::number(v.latency.mean, 'f', 3)) : QVariant(); },
         [](const V &v) { return v.ok() ? QVariant(v.latency.mean) : QVariant(); }, true,
         QObject::tr("Mean wall time of a forward pass over the timed runs, without the profiler")},
        {QObject::tr("p90 (timed runs, ms)"), [](const V &v) { return v.ok() ? QVariant(QString::number(v.latency.p90, 'f', 3)) : QVariant(); },
         [](const V &v) { return v.ok() ? QVariant(v.latency.p90) : QVariant(); }, true,
         QObject::tr("90th percentile of the timed runs' wall times, without the profiler")},
        {QObject::tr("Speedup"), [](const V &v) { return v.ok() ? QVariant(QString::number(v.speedup, 'f', 2) + QStringLiteral("×")) : QVariant(); },
         [](const V &v) { return v.speedup; }, true, QObject::tr("Baseline latency / this variant's")},
        {QObject::tr("Size"), [](const V &v) { return v.modelBytes ? QVariant(QString::fromStdString(formatBytes(std::uint64_t(v.modelBytes)))) : QVariant(); },
         [](const V &v) { return qint64(v.modelBytes); }, true, QObject::tr("Serialized TorchScript size")},
        {QObject::tr("Max |diff|"), [](const V &v) { return optionalNumber(v.maxAbsDiff, 'g', 3); },
         [](const V &v) { return v.maxAbsDiff ? QVariant(*v.maxAbsDiff) : QVariant(); }, true,
         QObject::tr("Largest absolute difference of the outputs from the baseline's, same inputs")},
        {QObject::tr("Rel. error"), [](const V &v) { return optionalNumber(v.relativeError, 'g', 3); },
         [](const V &v) { return v.relativeError ? QVariant(*v.relativeError) : QVariant(); }, true,
         QObject::tr("‖output − baseline‖ / ‖baseline‖")},
        {QObject::tr("Note or error"),
         [](const V &v) { return QString::fromStdString(v.ok() ? v.note : QObject::tr("failed: ").toStdString() + v.error); }, {}, false, {}},
    };
}

std::vector<LayerDeltaModel::Column> layerDeltaColumns()
{
    using D = torch::LayerDelta;
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
