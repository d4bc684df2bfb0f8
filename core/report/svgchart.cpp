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

const std::string &seriesColor(const std::vector<std::string> &colors, std::size_t series)
{
    static const std::string grey = "#888888";
    return series < colors.size() ? colors[series] : grey;
}

// The svg element, a white background, the title and the legend in one row from x.
void writeHeading(std::ostringstream &out, int width, int height, int x, const std::string &title,
                  const std::vector<std::string> &names, const std::vector<std::string> &colors)
{
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
        << width << ' ' << height << "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n";
    out << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    out << "<text x=\"" << x << "\" y=\"20\" font-size=\"14\" font-weight=\"bold\" fill=\"#1f2328\">" << escapeHtml(title)
        << "</text>\n";
    double legendX = x;
    for (std::size_t s = 0; s < names.size(); ++s) {
        out << "<rect x=\"" << legendX << "\" y=\"32\" width=\"12\" height=\"12\" fill=\"" << seriesColor(colors, s) << "\"/>";
        out << "<text x=\"" << legendX + 16 << "\" y=\"42\" fill=\"#1f2328\">" << escapeHtml(names[s]) << "</text>\n";
        legendX += 24 + 7.5 * double(names[s].size());
    }
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
    writeHeading(out, width, height, kLabelWidth, chart.title, chart.seriesNames, chart.seriesColors);

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
            const auto &color = seriesColor(chart.seriesColors, s);
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

std::string renderSvg(const ColumnChart &chart, int width, int height)
{
    constexpr int kAxisLabels = 56; // value labels left of the plot
    double max = 0;
    for (const auto &column : chart.columns)
        max = std::max({max, column.max, std::accumulate(column.values.begin(), column.values.end(), 0.0)});
    const double step = niceStep(max, 4);
    const double axisMax = max > 0 ? std::ceil(max / step) * step : 1;
    const int plotLeft = kAxisLabels;
    const int plotWidth = std::max(100, width - plotLeft - kRightMargin);
    const int plotBottom = std::max(kTop + 60, height - kAxisHeight - 6);
    const double plotHeight = plotBottom - kTop;
    const double columnWidth = chart.columns.empty() ? 0 : double(plotWidth) / double(chart.columns.size());
    const auto y = [&](double value) { return plotBottom - value / axisMax * plotHeight; };

    std::ostringstream out;
    writeHeading(out, width, height, plotLeft, chart.title, chart.seriesNames, chart.seriesColors);
    for (double tick = 0; tick <= axisMax + step / 2; tick += step) {
        out << "<line x1=\"" << plotLeft << "\" y1=\"" << y(tick) << "\" x2=\"" << plotLeft + plotWidth << "\" y2=\"" << y(tick)
            << "\" stroke=\"#d1d9e0\"/><text x=\"" << plotLeft - 6 << "\" y=\"" << y(tick) + 4
            << "\" text-anchor=\"end\" fill=\"#59636e\">" << number(tick) << "</text>\n";
    }
    out << "<text x=\"14\" y=\"" << kTop + plotHeight / 2 << "\" text-anchor=\"middle\" fill=\"#59636e\" transform=\"rotate(-90 14 "
        << kTop + plotHeight / 2 << ")\">" << escapeHtml(chart.unit) << "</text>\n";

    // Item numbers under the plot, at about eight nice positions.
    const double perColumn = double(std::max<std::size_t>(1, chart.itemsPerColumn));
    const double itemStep = std::max(1.0, niceStep(double(chart.itemCount), 8));
    for (double item = itemStep; item <= double(chart.itemCount); item += itemStep) {
        const double x = plotLeft + (item - 0.5) / perColumn * columnWidth;
        out << "<line x1=\"" << x << "\" y1=\"" << plotBottom << "\" x2=\"" << x << "\" y2=\"" << plotBottom + 4
            << "\" stroke=\"#59636e\"/><text x=\"" << x << "\" y=\"" << plotBottom + 16 << "\" text-anchor=\"middle\" fill=\"#59636e\">"
            << number(item) << "</text>\n";
    }
    out << "<text x=\"" << plotLeft + plotWidth / 2 << "\" y=\"" << plotBottom + 32 << "\" text-anchor=\"middle\" fill=\"#59636e\">"
        << escapeHtml(chart.xLabel) << "</text>\n";

    // One path per series: thousands of columns stay a few kilobytes.
    for (std::size_t s = 0; s < chart.seriesNames.size(); ++s) {
        std::ostringstream path;
        for (std::size_t c = 0; c < chart.columns.size(); ++c) {
            const auto &values = chart.columns[c].values;
            if (s >= values.size() || values[s] <= 0)
                continue;
            const double below = std::accumulate(values.begin(), values.begin() + std::ptrdiff_t(s), 0.0);
            const double top = y(below + values[s]);
            path << 'M' << number(plotLeft + double(c) * columnWidth) << ' ' << number(top) << 'h' << number(columnWidth) << 'V'
                 << number(y(below)) << 'h' << number(-columnWidth) << 'Z';
        }
        if (!path.str().empty())
            out << "<path fill=\"" << seriesColor(chart.seriesColors, s) << "\" d=\"" << path.str() << "\"/>\n";
    }
    std::ostringstream marks;
    for (std::size_t c = 0; c < chart.columns.size(); ++c) {
        if (chart.columns[c].max > 0)
            marks << 'M' << number(plotLeft + double(c) * columnWidth) << ' ' << number(y(chart.columns[c].max)) << 'h'
                  << number(std::max(1.0, columnWidth));
    }
    if (!marks.str().empty())
        out << "<path fill=\"none\" stroke=\"#1f2328\" stroke-width=\"1.5\" d=\"" << marks.str() << "\"/>\n";
    out << "<line x1=\"" << plotLeft << "\" y1=\"" << plotBottom << "\" x2=\"" << plotLeft + plotWidth << "\" y2=\"" << plotBottom
        << "\" stroke=\"#59636e\"/>\n";
    out << "</svg>\n";
    return out.str();
}

} // namespace pyrometer::report
