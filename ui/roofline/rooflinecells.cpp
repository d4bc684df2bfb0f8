#include "ui/roofline/rooflinecells.h"

#include <QCoreApplication>

namespace pyrometer::ui::roofline {

QString boundLabel(analysis::Bound bound)
{
    switch (bound) {
    case analysis::Bound::Memory: return QCoreApplication::translate("Roofline", "memory");
    case analysis::Bound::Compute: return QCoreApplication::translate("Roofline", "compute");
    case analysis::Bound::Unknown: break;
    }
    return QCoreApplication::translate("Roofline", "unknown");
}

std::vector<tables::TableColumn> rooflineColumns(bool gpu)
{
    using tables::ColumnKind;
    const auto tr = [](const char *text) { return QCoreApplication::translate("Roofline", text); };
    return {{tr("GFLOP"), ColumnKind::Number, QStringLiteral("gflop")},
            {tr("MB moved"), ColumnKind::Number, QStringLiteral("mb")},
            {tr("FLOP/byte"), ColumnKind::Number, QStringLiteral("intensity")},
            gpu ? tables::TableColumn{tr("TFLOP/s"), ColumnKind::Number, QStringLiteral("tflops")}
                : tables::TableColumn{tr("GFLOP/s"), ColumnKind::Number, QStringLiteral("gflops")},
            {tr("% of roof"), ColumnKind::Number, QStringLiteral("pct_of_roof")},
            {tr("Bound"), ColumnKind::Text, QStringLiteral("bound")}};
}

std::vector<QVariant> noWorkCells()
{
    return {QVariant(0.0), QVariant(0.0), QVariant(), QVariant(), QVariant(), QVariant()};
}

std::vector<QVariant> rooflineCells(const analysis::RooflineRow *row, bool gpu)
{
    if (!row)
        return {QStringLiteral("unknown"), QVariant(), QVariant(), QVariant(), QVariant(), QVariant()};
    return {figureCell(row->flops, 1e9),
            figureCell(row->bytes, 1e6),
            figureCell(row->intensity, 1),
            figureCell(row->achievedFlops, gpu ? 1e12 : 1e9),
            row->roof ? figureCell(row->percentOfRoof, 1) : QVariant(QStringLiteral("unknown")),
            boundLabel(row->bound)};
}

} // namespace pyrometer::ui::roofline
