#pragma once

#include <QString>

#include <array>
#include <optional>

namespace pyrometer::ui {

// The main window's pages, in sidebar order.
enum class Page {
    Overview,
    Timeline,
    FlameGraph,
    Operators,
    Memory,
    Model,
    Compare,
    Distributed,
    Gpu,
    Roofline,
    Snapshots
};

inline constexpr std::array<Page, 11> kAllPages{Page::Overview, Page::Timeline, Page::FlameGraph, Page::Operators,
                                                Page::Memory,   Page::Model,    Page::Compare,    Page::Distributed,
                                                Page::Gpu,      Page::Roofline, Page::Snapshots};

// The name used on the command line (--view): overview, timeline, flamegraph, operators,
// memory, model, compare, distributed, gpu, roofline, snapshots.
QString pageName(Page page);
std::optional<Page> pageFromName(const QString &name);
// Every page's command-line name, in sidebar order, for help texts: "overview, timeline, ...,
// roofline or snapshots".
QString pageNames();
// The title shown in the sidebar.
QString pageTitle(Page page);

} // namespace pyrometer::ui
