#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QString>
#include <QVariant>

#include "core/analysis/roofline.h"
#include "ui/tables/tabletree.h"

#include <cmath>
#include <vector>

namespace pyrometer::ui::roofline {

// A roofline figure for a table's Number column, in a unit (1e9 for GFLOP), to three significant
// digits; "unknown" for what cannot be known (analysis::OpWork::kUnknown, any negative value).
inline QVariant figureCell(double value, double scale)
{
    if (value < 0)
        return QStringLiteral("unknown");
    const double scaled = value / scale;
    if (scaled == 0)
        return 0.0;
    const double digits = std::pow(10.0, 2 - std::floor(std::log10(std::abs(scaled))));
    return std::round(scaled * digits) / digits;
}

// "memory", "compute", "unknown", translated.
QString boundLabel(analysis::Bound bound);

// The roofline columns the Operators and Kernels tables gain: GFLOP, MB moved, FLOP/byte,
// TFLOP/s (GFLOP/s on a CPU trace), % of roof, Bound.
std::vector<tables::TableColumn> rooflineColumns(bool gpu);
// A row's cells for those columns; for no row (an op whose work no formula knows), "unknown"
// FLOPs and the rest blank.
std::vector<QVariant> rooflineCells(const analysis::RooflineRow *row, bool gpu);
// The cells of an op that does no work of its own (a view, an empty tensor): 0 GFLOP and 0 MB
// moved, the rest blank.
std::vector<QVariant> noWorkCells();

} // namespace pyrometer::ui::roofline
