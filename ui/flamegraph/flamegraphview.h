#pragma once

// Qt first: moc cannot parse <compare> (included by core headers) before a Qt header.
#include <QElapsedTimer>
#include <QImage>
#include <QWidget>

#include "core/analysis/flamegraph.h"
#include "ui/flamegraph/flamecolors.h"
#include "ui/flamegraph/flametooltip.h"

#include <memory>
#include <optional>

namespace pyrometer::ui::flamegraph {

// An icicle of a FlameGraph (a plain one, or a diff from analysis::prepareDiffGraph): the
// zoomed frame spans the width, its callees below it (above it when inverted). Reusable on
// any page: give it a graph, listen to its signals.
//   click a frame           zoom into it (the full-width frame zooms back out one level)
//   double-click a frame    sandwichRequested(name)
//   context menu            zoom, sandwich, copy name, then the actions added to the widget
//   wheel                   scroll when the graph is taller than the view
// Layout is analysis::layoutIcicle, recomputed only when the viewport changes; frames
// narrower than a pixel are merged, so painting costs the same at any zoom.
class FlameGraphView final : public QWidget {
    Q_OBJECT
public:
    explicit FlameGraphView(QWidget *parent = nullptr);

    void setGraph(std::shared_ptr<const analysis::FlameGraph> graph);
    const analysis::FlameGraph *graph() const { return m_graph.get(); }
    std::shared_ptr<const analysis::FlameGraph> sharedGraph() const { return m_graph; }

    void setColorMode(FlameColorMode mode);
    FlameColorMode colorMode() const { return m_colorMode; }
    void setInverted(bool inverted);
    // Time (default) or bytes: how frame labels and tooltips print a node's total.
    void setUnit(FlameUnit unit)
    {
        m_unit = unit;
        update();
    }
    // Highlights frames whose name contains text (case-insensitive); others are dimmed.
    void setSearchText(const QString &text);
    const analysis::FlameSearch &search() const { return m_search; }

    void zoomTo(std::uint32_t node);
    std::uint32_t zoom() const { return m_zoom; }

    // The layout of the current size and zoom (what the last paint drew, or will draw).
    const analysis::IcicleLayout &currentLayout();
    // The frame under a point, if any; merged boxes count as their first frame.
    std::optional<std::uint32_t> nodeAt(QPoint pos);
    QString toolTipAt(QPoint pos);
    int rowHeight() const;
    QSize sizeHint() const override { return {800, 400}; }

    // The zoomed frame's subtree as this view draws it, every row of it at `width` pixels
    // (scrolled out of view or not), cropped to the rows drawn and at most maxHeight tall
    // (the rows nearest the zoomed frame): an image for a report. Null without a graph.
    QImage contentImage(int width, int maxHeight) const;

Q_SIGNALS:
    void zoomChanged(std::uint32_t node);
    void sandwichRequested(const QString &function);
    // Paint time of the last frame, for benchmarks.
    void painted(double milliseconds);

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    int boxAt(QPoint pos);
    void paintBoxes(QPainter &painter, const std::vector<analysis::FlameBox> &boxes) const;
    void recolor();
    void clampScroll();
    analysis::IcicleViewport viewport() const;

    std::shared_ptr<const analysis::FlameGraph> m_graph;
    FlameColorMode m_colorMode = FlameColorMode::ByCategory;
    std::vector<std::uint32_t> m_colors; // per node, for the colour mode
    analysis::FlameSearch m_search;
    QString m_searchText;
    std::uint32_t m_zoom = 0;
    bool m_inverted = false;
    FlameUnit m_unit = FlameUnit::Time;
    int m_scrollY = 0;
    int m_hovered = -1; // box index
    int m_pressedBox = -1;
    bool m_ignoreRelease = false;          // the release that ends a double-click
    std::optional<std::uint32_t> m_clicked; // the frame the last click was on
    QElapsedTimer m_sinceClick;
    analysis::IcicleLayout m_layout;
    bool m_layoutValid = false;
};

} // namespace pyrometer::ui::flamegraph
