#pragma once

#include <QString>
#include <QVariant>

#include <cmath>

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

} // namespace pyrometer::ui::roofline
