#include "core/report/rooflinereport.h"

#include "core/report/reportrender.h"
#include "core/util/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace pyrometer::report {
namespace {

constexpr int kPlotLeft = 80, kPlotRight = 20, kPlotTop = 36, kPlotBottom = 44;

std::string rate(double value, const char *unit)
{
    const char *prefixes[] = {"", "k", "M", "G", "T", "P"};
    int p = 0;
    while (value >= 1000 && p < 5) {
        value /= 1000;
        ++p;
    }
    char text[48];
    std::snprintf(text, sizeof text, "%.3g %s%s", value, prefixes[p], unit);
    return text;
}

std::string figure(double value, const char *format)
{
    if (value < 0)
        return "unknown";
    char text[48];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

const char *boundColor(analysis::Bound bound)
{
    switch (bound) {
    case analysis::Bound::Memory: return "#1e88e5";
    case analysis::Bound::Compute: return "#e65100";
    case analysis::Bound::Unknown: break;
    }
    return "#757575";
}

} // namespace

std::string renderRooflineSvg(const analysis::Roofline &roofline, int width, int height)
{
    // The range: every placed row and every ridge, a decade around them.
    double xLow = 1e300, xHigh = 0, yLow = 1e300, yHigh = 0;
    std::vector<const analysis::RooflineRow *> placed;
    std::vector<analysis::Roof> roofs;
    for (const auto &row : roofline.rows) {
        if (row.roof && std::find(roofs.begin(), roofs.end(), *row.roof) == roofs.end())
            roofs.push_back(*row.roof);
        if (!row.known() || row.intensity <= 0 || row.achievedFlops <= 0)
            continue;
        placed.push_back(&row);
        xLow = std::min(xLow, row.intensity), xHigh = std::max(xHigh, row.intensity);
        yLow = std::min(yLow, row.achievedFlops), yHigh = std::max(yHigh, row.achievedFlops);
    }
    for (const auto &roof : roofs) {
        xLow = std::min(xLow, roof.ridge() / 10), xHigh = std::max(xHigh, roof.ridge() * 4);
        yHigh = std::max(yHigh, roof.peakFlops);
        yLow = std::min(yLow, roof.peakFlops / 1000);
    }
    if (xHigh <= 0)
        xLow = 0.1, xHigh = 1000, yLow = 1e9, yHigh = 1e15;
    xLow = std::pow(10, std::floor(std::log10(xLow))), xHigh = std::pow(10, std::ceil(std::log10(xHigh)));
    yLow = std::pow(10, std::floor(std::log10(yLow))), yHigh = std::pow(10, std::ceil(std::log10(yHigh * 1.5)));
    const double plotW = width - kPlotLeft - kPlotRight, plotH = height - kPlotTop - kPlotBottom;
    const auto x = [&](double v) { return kPlotLeft + plotW * std::log10(v / xLow) / std::log10(xHigh / xLow); };
    const auto y = [&](double v) { return kPlotTop + plotH * (1 - std::log10(v / yLow) / std::log10(yHigh / yLow)); };

    std::ostringstream out;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width
        << ' ' << height << "\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n";
    out << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    out << "<text x=\"" << kPlotLeft << "\" y=\"20\" font-size=\"14\" font-weight=\"bold\" fill=\"#1f2328\">Roofline"
        << (roofline.device ? ": " + escapeHtml(roofline.device->name) : std::string(" (the device's roof is unknown)")) << "</text>\n";
    // Decades as grid lines, labelled.
    for (double v = xLow; v <= xHigh * 1.001; v *= 10)
        out << "<line x1=\"" << x(v) << "\" y1=\"" << kPlotTop << "\" x2=\"" << x(v) << "\" y2=\"" << kPlotTop + plotH
            << "\" stroke=\"#e1e4e8\"/><text x=\"" << x(v) << "\" y=\"" << kPlotTop + plotH + 16 << "\" text-anchor=\"middle\" fill=\"#57606a\">"
            << rate(v, "") << "</text>\n";
    for (double v = yLow; v <= yHigh * 1.001; v *= 10)
        out << "<line x1=\"" << kPlotLeft << "\" y1=\"" << y(v) << "\" x2=\"" << kPlotLeft + plotW << "\" y2=\"" << y(v)
            << "\" stroke=\"#e1e4e8\"/><text x=\"" << kPlotLeft - 6 << "\" y=\"" << y(v) + 4 << "\" text-anchor=\"end\" fill=\"#57606a\">"
            << rate(v, "FLOP/s") << "</text>\n";
    out << "<text x=\"" << kPlotLeft + plotW / 2 << "\" y=\"" << height - 8
        << "\" text-anchor=\"middle\" fill=\"#1f2328\">Arithmetic intensity (FLOP/byte)</text>\n";
    // Roofs: the bandwidth's slope to the ridge, then flat at the peak.
    std::sort(roofs.begin(), roofs.end(), [](const auto &a, const auto &b) { return a.peakFlops > b.peakFlops; });
    for (std::size_t r = 0; r < roofs.size(); ++r) {
        const auto &roof = roofs[r];
        const double start = std::max(xLow, yLow / roof.bandwidth);
        out << "<polyline fill=\"none\" stroke=\"#1f2328\" stroke-width=\"" << (r == 0 ? 2 : 1.5) << "\""
            << (r == 0 ? "" : " stroke-dasharray=\"6 4\"") << " points=\"" << x(start) << ',' << y(start * roof.bandwidth) << ' '
            << x(roof.ridge()) << ',' << y(roof.peakFlops) << ' ' << x(xHigh) << ',' << y(roof.peakFlops) << "\"/>\n";
        out << "<text x=\"" << kPlotLeft + plotW - 4 << "\" y=\"" << y(roof.peakFlops) - 4 << "\" text-anchor=\"end\" fill=\"#1f2328\">"
            << analysis::precisionName(roof.precision) << ' ' << rate(roof.peakFlops, "FLOP/s") << "</text>\n";
    }
    if (!roofs.empty())
        out << "<text x=\"" << x(std::max(xLow, yLow / roofs.front().bandwidth)) + 6 << "\" y=\"" << kPlotTop + plotH - 6
            << "\" fill=\"#1f2328\">" << rate(roofs.front().bandwidth, "B/s") << "</text>\n";
    // Rows: largest first so small ones stay on top; the five heaviest named.
    std::stable_sort(placed.begin(), placed.end(), [](const auto *a, const auto *b) { return a->timeNs > b->timeNs; });
    for (auto it = placed.rbegin(); it != placed.rend(); ++it) {
        const auto &row = **it;
        const double share = roofline.totalNs > 0 ? double(row.timeNs) / double(roofline.totalNs) : 0;
        const double radius = std::clamp(3 + 20 * std::sqrt(share), 3.0, 20.0);
        out << "<circle cx=\"" << x(row.intensity) << "\" cy=\"" << y(row.achievedFlops) << "\" r=\"" << radius << "\" fill=\""
            << boundColor(row.bound) << "\" fill-opacity=\"0.55\" stroke=\"" << boundColor(row.bound) << "\"><title>"
            << escapeHtml(row.name) << "</title></circle>\n";
    }
    for (std::size_t i = 0; i < placed.size() && i < 5; ++i)
        out << "<text x=\"" << x(placed[i]->intensity) + 8 << "\" y=\"" << y(placed[i]->achievedFlops) - 8
            << "\" fill=\"#1f2328\" font-size=\"11\">" << escapeHtml(placed[i]->name) << "</text>\n";
    out << "</svg>\n";
    return out.str();
}

Section rooflineSection(const analysis::TraceIndex &index, const std::string &idPrefix, const ReportOptions &options,
                        const StopToken *stop)
{
    Section section{idPrefix + "roofline", "Roofline", 3, {}, {}, {}, {}};
    const auto roofline = analysis::buildRoofline(index, {}, stop);
    const double known = roofline.totalNs > 0 ? 100.0 * double(roofline.knownNs) / double(roofline.totalNs) : 0;
    section.facts.push_back({"Device", roofline.device ? roofline.device->name + " (" + roofline.device->source + ")"
                                                       : (roofline.traceDevice.empty() ? std::string("none named")
                                                                                       : roofline.traceDevice + ": not in the device table")});
    section.facts.push_back({"Time in ops of known work", figure(known, "%.1f%%")});
    if (roofline.knownNs == 0) {
        section.paragraphs.push_back("No op's work is known: the trace needs input shapes (record_shapes=True), and torch 2.x's "
                                     "Concrete Inputs for convolutions.");
        return section;
    }
    section.images.push_back({"Each op of known work by its arithmetic intensity and the FLOP/s it reached; blue: memory-bound, "
                              "orange: compute-bound, grey: the roof is unknown",
                              "image/svg+xml", renderRooflineSvg(roofline), 0});
    Table table;
    table.caption = "The ops that took longest, with their work";
    table.header = {"Op", "Calls", "Time", "%", "GFLOP", "MB", "FLOP/byte", "TFLOP/s", "% of roof", "Bound"};
    table.rightAligned = {false, true, true, true, true, true, true, true, true, false};
    table.names = {true};
    for (const auto &row : roofline.rows) {
        if (table.rows.size() >= options.topRows)
            break;
        table.rows.push_back({row.name, std::to_string(row.calls), formatDuration(row.timeNs, options.timeUnit),
                              figure(100.0 * double(row.timeNs) / double(roofline.totalNs), "%.1f"), figure(row.flops / 1e9, "%.4g"),
                              figure(row.bytes / 1e6, "%.4g"), figure(row.intensity, "%.3g"),
                              figure(row.achievedFlops / 1e12, "%.3g"), figure(row.percentOfRoof, "%.1f"),
                              std::string(analysis::boundName(row.bound))});
    }
    section.tables.push_back(std::move(table));
    for (const auto &finding : analysis::rooflineFindings(roofline))
        section.paragraphs.push_back(finding.text);
    return section;
}

} // namespace pyrometer::report
