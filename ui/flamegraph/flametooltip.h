#pragma once

#include "core/analysis/flamechart.h"
#include "core/analysis/flamegraph.h"

#include <QString>

namespace pyrometer::ui::flamegraph {

// What a graph's values are: time (the trees of traces) or bytes (live memory of a snapshot,
// whose tree keeps bytes where a trace's keeps nanoseconds, and blocks as calls).
enum class FlameUnit { Time, Bytes };
// A value in its unit: "1.25 ms", "3.00 GiB".
QString valueText(std::int64_t value, FlameUnit unit);

// Rich-text tooltips: the name, then total, self and calls with units, and the share of the
// whole graph and of the parent; a diff graph adds the base run's total and the change.
QString frameToolTip(const analysis::FlameGraph &graph, std::uint32_t node, FlameUnit unit = FlameUnit::Time);
// A box standing for `count` frames of one parent, each narrower than a pixel (the first is
// `first`).
QString mergedToolTip(const analysis::FlameGraph &graph, std::uint32_t first, std::uint32_t count,
                      FlameUnit unit = FlameUnit::Time);
// One event of the flame chart (lane, position in it), or `count` merged ones from there.
QString chartToolTip(const analysis::FlameChart &chart, std::uint32_t lane, std::uint32_t position,
                     std::uint32_t count = 0);

// "34.5%", "<0.1%" for a small non-zero share.
QString percent(double share);
QString duration(std::int64_t ns);

} // namespace pyrometer::ui::flamegraph
