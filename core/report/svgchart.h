#pragma once

#include <string>
#include <vector>

namespace pyrometer::report {

// A horizontal stacked bar chart, one bar per row (a step), one colour per series (a
// category). Written as SVG text by hand so that pyrometer-cli draws it without Qt; the
// window embeds the same picture.
struct StackedBarChart {
    std::string title;
    std::string unit; // axis label: "ms"
    std::vector<std::string> seriesNames;
    std::vector<std::string> seriesColors; // "#rrggbb", one per series
    struct Bar {
        std::string label;
        std::vector<double> values; // one per series, in unit
    };
    std::vector<Bar> bars;
    bool operator==(const StackedBarChart &) const = default;
};

// width in pixels; the height follows from the number of bars.
std::string renderSvg(const StackedBarChart &chart, int width = 900);

// A "nice" axis step (1, 2 or 5 times a power of ten) giving about `ticks` ticks up to max.
double niceStep(double max, int ticks);

} // namespace pyrometer::report
