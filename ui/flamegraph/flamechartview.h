#pragma once

// Qt first: moc cannot parse <compare> (included by core headers) before a Qt header.
#include <QWidget>

#include "core/analysis/flamechart.h"

#include <memory>
#include <optional>

namespace pyrometer::ui::flamegraph {

// A trace and its analysis index, which points into the trace and so travels with it.
struct TraceSource {
    std::shared_ptr<const trace::Trace> trace;
    std::shared_ptr<const analysis::TraceIndex> index;
};

// A flame chart and what it points into, kept alive together.
struct ChartData {
    std::shared_ptr<const TraceSource> source;
    analysis::FlameChart chart;
};

// The time-ordered flame chart: per CPU thread, each operator where it ran, nested by depth.
//   click a slice           zoom the time axis to it (zoomChanged names the slice)
//   wheel                   zoom around the cursor; Shift+wheel scrolls the threads
//   drag                    pan
// Layout is analysis::layoutFlameChart; slices narrower than a pixel are merged.
class FlameChartView final : public QWidget {
    Q_OBJECT
public:
    explicit FlameChartView(QWidget *parent = nullptr);

    void setChart(std::shared_ptr<const ChartData> chart);
    const ChartData *chart() const { return m_chart.get(); }
    void setByName(bool byName);
    void setSearchText(const QString &text);

    // Shows [startNs, endNs) across the width; the focus names the slice zoomed into (or none).
    void showRange(double startNs, double endNs, std::optional<analysis::EventRef> focus = std::nullopt);
    void showAll();
    std::optional<analysis::EventRef> focus() const { return m_focus; }
    // The focus and its enclosing slices, outermost first.
    std::vector<analysis::EventRef> focusPath() const;
    const analysis::ChartViewport &viewport() const { return m_viewport; }

    const analysis::ChartLayout &currentLayout();
    int boxAt(QPoint pos);
    QString toolTipAt(QPoint pos);
    // Zooms to the slice under pos, as a click does; false when there is none.
    bool zoomAt(QPoint pos);

Q_SIGNALS:
    void zoomChanged();

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    int rowHeight() const;
    void clampScroll();

    std::shared_ptr<const ChartData> m_chart;
    analysis::ChartViewport m_viewport;
    analysis::ChartLayout m_layout;
    bool m_layoutValid = false;
    bool m_byName = false;
    std::vector<bool> m_nameMatched; // by string id; empty when not searching
    std::optional<analysis::EventRef> m_focus;
    std::optional<QPoint> m_pressAt;
    double m_pressStartNs = 0;
    bool m_dragged = false;
};

} // namespace pyrometer::ui::flamegraph
