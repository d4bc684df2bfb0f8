#pragma once

#include "core/analysis/flamechart.h"
#include "core/analysis/flamegraph.h"

#include <QString>

namespace pyrometer::ui::flamegraph {

// Rich-text tooltips: the name, then total, self and calls with units, and the share of the
// whole graph and of the parent; a diff graph adds the base run's total and the change.
QString frameToolTip(const analysis::FlameGraph &graph, std::uint32_t node);
// A box standing for `count` frames of one parent, each narrower than a pixel (the first is
// `first`).
QString mergedToolTip(const analysis::FlameGraph &graph, std::uint32_t first, std::uint32_t count);
// One event of the flame chart (lane, position in it), or `count` merged ones from there.
QString chartToolTip(const analysis::FlameChart &chart, std::uint32_t lane, std::uint32_t position,
                     std::uint32_t count = 0);

// "34.5%", "<0.1%" for a small non-zero share.
QString percent(double share);
QString duration(std::int64_t ns);

} // namespace pyrometer::ui::flamegraph
