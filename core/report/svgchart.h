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

// A vertical stacked column chart of a long series in order (steps in time order): one
// column per item, or per run of consecutive items showing their mean, with a mark at the
// highest of them. Its size is fixed whatever the number of items.
struct ColumnChart {
    std::string title;
    std::string unit;   // value axis label: "ms"
    std::string xLabel; // item axis label: "step"
    std::vector<std::string> seriesNames;
    std::vector<std::string> seriesColors; // "#rrggbb", one per series
    struct Column {
        std::vector<double> values; // stacked, one per series, in unit
        double max = 0;             // a mark at this value (the highest item averaged); 0: none
        bool operator==(const Column &) const = default;
    };
    std::vector<Column> columns;
    std::size_t itemsPerColumn = 1; // column c covers items c * itemsPerColumn + 1 ... (1-based)
    std::size_t itemCount = 0;
    bool operator==(const ColumnChart &) const = default;
};

std::string renderSvg(const ColumnChart &chart, int width = 900, int height = 320);

// A "nice" axis step (1, 2 or 5 times a power of ten) giving about `ticks` ticks up to max.
double niceStep(double max, int ticks);

} // namespace pyrometer::report
