#pragma once

#include <QWidget>

#include <memory>
#include <vector>

namespace pyrometer::ui::timeline {

class TimelineView;
struct TimelineIndex;

// The whole trace in one strip: how busy each slice of time is (top-level events), with the
// timeline's visible window marked. Clicking or dragging moves the window there.
class OverviewStrip final : public QWidget {
    Q_OBJECT
public:
    explicit OverviewStrip(TimelineView *view, QWidget *parent = nullptr);

    void setIndex(std::shared_ptr<const TimelineIndex> index);
    // Busy fraction (0..1) of each of `bins` equal slices of the span, from depth-0 events.
    static std::vector<double> busyProfile(const TimelineIndex &index, int bins);
    QSize sizeHint() const override { return {400, 36}; }

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void centerOn(double x);

    TimelineView *m_view;
    std::shared_ptr<const TimelineIndex> m_index;
    std::vector<double> m_profile;
};

} // namespace pyrometer::ui::timeline
