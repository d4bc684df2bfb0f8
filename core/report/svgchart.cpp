#include "core/report/svgchart.h"

#include "core/report/reportrender.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace pyrometer::report {
namespace {

constexpr int kLabelWidth = 150;
constexpr int kBarHeight = 18;
constexpr int kBarGap = 6;
constexpr int kTop = 58; // title and legend
constexpr int kAxisHeight = 34;
constexpr int kRightMargin = 20;

std::string number(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

} // namespace

double niceStep(double max, int ticks)
{
    if (max <= 0 || ticks <= 0)
        return 1;
    const double raw = max / ticks;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
        if (raw <= factor * power)
            return factor * power;
    }
    return 10 * power;
}

std::string renderSvg(const StackedBarChart &chart, int width)
{
    double max = 0;
    for (const auto &bar : chart.bars)
        max = std::max(max, std::accumulate(bar.values.begin(), bar.values.end(), 0.0));
    const double step = niceStep(max, 5);
    const double axisMax = max > 0 ? std::ceil(max / step) * step : 1;
    const int plotWidth = std::max(100, width - kLabelWidth - kRightMargin);
    const int height = kTop + int(chart.bars.size()) * (kBarHeight + kBarGap) + kAxisHeight;
    const auto x = [&](double value) { return kLabelWidth + value / axisMax * plotWidth; };

    std::ostringstream out;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
        << width << ' ' << height << "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n";
    out << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    out << "<text x=\"" << kLabelWidth << "\" y=\"20\" font-size=\"14\" font-weight=\"bold\" fill=\"#1f2328\">"
        << escapeHtml(chart.title) << "</text>\n";

    // Legend, in one row.
    double legendX = kLabelWidth;
    for (std::size_t s = 0; s < chart.seriesNames.size(); ++s) {
        const auto &color = s < chart.seriesColors.size() ? chart.seriesColors[s] : std::string("#888888");
        out << "<rect x=\"" << legendX << "\" y=\"32\" width=\"12\" height=\"12\" fill=\"" << color << "\"/>";
        out << "<text x=\"" << legendX + 16 << "\" y=\"42\" fill=\"#1f2328\">" << escapeHtml(chart.seriesNames[s]) << "</text>\n";
        legendX += 24 + 7.5 * double(chart.seriesNames[s].size());
    }

    // Grid and axis.
    const int plotBottom = height - kAxisHeight;
    for (double tick = 0; tick <= axisMax + step / 2; tick += step) {
        out << "<line x1=\"" << x(tick) << "\" y1=\"" << kTop - 4 << "\" x2=\"" << x(tick) << "\" y2=\"" << plotBottom
            << "\" stroke=\"#d1d9e0\"/>";
        out << "<text x=\"" << x(tick) << "\" y=\"" << plotBottom + 14 << "\" text-anchor=\"middle\" fill=\"#59636e\">"
            << number(tick) << "</text>\n";
    }
    out << "<text x=\"" << kLabelWidth + plotWidth / 2 << "\" y=\"" << plotBottom + 30
        << "\" text-anchor=\"middle\" fill=\"#59636e\">" << escapeHtml(chart.unit) << "</text>\n";

    // Bars.
    for (std::size_t b = 0; b < chart.bars.size(); ++b) {
        const auto &bar = chart.bars[b];
        const int y = kTop + int(b) * (kBarHeight + kBarGap);
        out << "<text x=\"" << kLabelWidth - 8 << "\" y=\"" << y + kBarHeight - 5
            << "\" text-anchor=\"end\" fill=\"#1f2328\">" << escapeHtml(bar.label) << "</text>";
        double offset = 0;
        for (std::size_t s = 0; s < bar.values.size(); ++s) {
            if (bar.values[s] <= 0)
                continue;
            const auto &color = s < chart.seriesColors.size() ? chart.seriesColors[s] : std::string("#888888");
            out << "<rect x=\"" << x(offset) << "\" y=\"" << y << "\" width=\"" << x(offset + bar.values[s]) - x(offset)
                << "\" height=\"" << kBarHeight << "\" fill=\"" << color << "\"><title>"
                << escapeHtml(s < chart.seriesNames.size() ? chart.seriesNames[s] : std::string()) << ": "
                << number(bar.values[s]) << ' ' << escapeHtml(chart.unit) << "</title></rect>";
            offset += bar.values[s];
        }
        out << "\n";
    }
    out << "</svg>\n";
    return out.str();
}

} // namespace pyrometer::report
