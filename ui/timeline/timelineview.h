#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QFont>
#include <QHash>
#include <QImage>
#include <QStaticText>
#include <QWidget>

#include "ui/timeline/drawlist.h"

#include <memory>
#include <optional>
#include <set>
#include <vector>

class QScrollBar;

namespace pyrometer::ui::timeline {

// A selected or searched event: its track and its index in the track's columns.
struct EventRef {
    trace::TrackId track;
    std::uint32_t event = 0;
    bool operator==(const EventRef &) const = default;
    auto operator<=>(const EventRef &) const = default;
};

// Where the arrow keys move the selection: the event before or after it in its row, the one
// that encloses it, or the first one it encloses.
enum class EventStep { Previous, Next, Parent, Child };
std::optional<EventRef> adjacentEvent(const TimelineIndex &index, EventRef from, EventStep step);

// The timeline itself: a gutter of track names, a time ruler with the step band, and the rows.
// Navigation as in Perfetto: W/S zoom around the cursor, A/D pan, wheel zooms (or scrolls, with
// Ctrl zooming, when wheelZooms is off), drag pans, Shift+drag selects a range, click selects,
// double-click zooms to an event, F fits the selection, 0 shows everything. From the keyboard,
// [ and ] set the range's start and end at the cursor (the view's centre when the mouse is
// elsewhere), R sets it to the selected event, the arrow keys move the selection to the event
// before or after it, its parent or its first child, and Esc clears the range, then the selection.
// Painting only draws a draw list built beforehand, when the view changed.
class TimelineView final : public QWidget {
    Q_OBJECT
public:
    static constexpr int kGutterWidth = 200;
    static constexpr int kRulerHeight = 22;
    static constexpr int kStepBandHeight = 16;
    static constexpr int kFocusFrame = 2; // the focus mark's width

    explicit TimelineView(QWidget *parent = nullptr);

    void setIndex(std::shared_ptr<const TimelineIndex> index);
    const TimelineIndex *index() const { return m_index.get(); }
    std::shared_ptr<const TimelineIndex> indexPointer() const { return m_index; }

    const Viewport &viewport() const { return m_viewport; }
    const DrawList &drawList() const { return m_drawList; }
    const TimelineLayout &layout() const { return m_layout; }

    void setVisibleRange(double startNs, double endNs);
    void fitAll();
    void fitSelection();
    void zoomBy(double factor, double anchorX);
    void panByPixels(double dx);

    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return m_colorMode; }
    void setWheelZooms(bool plainWheelZooms) { m_wheelZooms = plainWheelZooms; }
    // GPU tracks first (the default) or in the trace's own order.
    void setTrackOrder(TrackOrder order);
    TrackOrder trackOrder() const { return m_trackOrder; }
    // The layout row of the process header drawn pinned at the top of the gutter (its own row
    // has scrolled away while its tracks still fill the top), or -1.
    int stickyHeaderRow() const;
    bool wheelZooms() const { return m_wheelZooms; }
    void setShowAllFlows(bool show);
    void setProcessCollapsed(std::uint32_t process, bool collapsed);
    bool isProcessCollapsed(std::uint32_t process) const { return m_collapsed.count(process) > 0; }

    std::optional<EventRef> selectedEvent() const { return m_selected; }
    // The outlined event the view went to (a search's match, an event another page showed).
    std::optional<EventRef> currentHighlight() const { return m_currentHighlight; }
    void selectEvent(std::optional<EventRef> event, bool reveal = false);
    // Scrolls the rows so that the part of a combined trace that process belongs to (a job's
    // rank: its GPU tracks first) starts at the top.
    void scrollToPartOf(std::uint32_t process);
    std::optional<std::pair<double, double>> selectedRange() const { return m_range; }
    // Selects a range as Shift+drag does (emits rangeSelected), e.g. when a session is restored.
    void selectRange(double startNs, double endNs);

    // Events to outline (search matches); the current match is drawn stronger.
    void setHighlights(std::vector<EventRef> events, std::optional<EventRef> current);

    // Named marks drawn over the rows (bookmarks): a flagged line for a position, a shaded
    // band for a range. Times as the viewport's.
    struct Marker {
        double startNs = 0;
        double endNs = 0;
        QString name;
        bool operator==(const Marker &) const = default;
    };
    void setMarkers(std::vector<Marker> markers);
    const std::vector<Marker> &markers() const { return m_markers; }

    // A process header's label as the gutter draws it (in the bold font), fitted to the gutter.
    QString gutterLabel(int layoutRow) const;

    // The rows area in widget coordinates.
    QRect rowsRect() const;
    // What a change of the view repaints: all of it but the scroll bar, which repaints itself.
    QRegion frameRegion() const;

Q_SIGNALS:
    void viewportChanged();
    void eventSelected(std::optional<pyrometer::ui::timeline::EventRef> event);
    void rangeSelected(double startNs, double endNs);
    void rangeCleared();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    void relayout();
    QString processLabel(std::uint32_t process) const;
    // The whole name of the process, track or counter whose gutter label is at a point.
    QString gutterName(QPoint widgetPos) const;
    void rebuild();
    // Grows the arrays frames build into to a frame's worst case, see rebuild.
    void reserveFrameArrays();
    void updateFrame();
    void clampViewport();
    // The view of the whole trace at the current size, fit-all's.
    Viewport wholeViewport() const;
    std::optional<Hit> hitAt(const QPoint &widgetPos) const;
    // The topmost event under the view's centre (or, where none is, the nearest): where the
    // arrow keys start when nothing is selected.
    std::optional<EventRef> eventAtCentre() const;
    QRectF eventRect(const EventRef &ref) const;
    void paintGutter(QPainter &painter) const;
    void paintGutterNames(QPainter &painter) const;
    void paintRuler(QPainter &painter) const;
    void paintRows(QPainter &painter) const;
    void paintOverlays(QPainter &painter) const;
    void paintFlows(QPainter &painter) const;
    void paintMarkers(QPainter &painter) const;
    void paintFocusMark(QPainter &painter) const;
    // The time keys act at: the mouse's, else the middle of the view.
    double cursorNs() const;
    enum class RangeEdge { Start, End };
    void setRangeEdge(RangeEdge edge);
    RangeEdge m_loneEdge = RangeEdge::Start; // which key set a range of one edge

    std::shared_ptr<const TimelineIndex> m_index;
    TimelineLayout m_layout;
    Viewport m_viewport;
    DrawList m_drawList;
    DrawList m_drawScratch;      // the rows built beside it, kept for its capacity (see rebuild)
    bool m_drawListStale = true; // the layout or colours changed since it was built
    // The whole trace's list while another is shown (m_wholeKept), else spare arrays.
    DrawList m_wholeList;
    bool m_wholeKept = false;
    mutable QImage m_rowsLayer; // reused between frames: see paintRows
    // What paintRows fills, kept from frame to frame so that painting allocates nothing.
    mutable std::vector<Fill> m_fills;
    // Box labels by name (and whether it is a kernel's, shortened): laid out once, not every
    // frame, with the last elision of each: on a small trace, whose boxes are wide, this took
    // the median frame from 3.52 to 3.10 ms; drawing the glyphs is the rest of a label's cost.
    struct BoxLabel {
        QStaticText text;
        int width = 0;        // of the whole text, in pixels
        int elidedTo = -1;    // the width `elided` was made for
        QStaticText elided;
    };
    mutable QHash<quint64, BoxLabel> m_labels;
    mutable QFont m_labelFont; // the font m_labels were laid out in
    // The gutter as last drawn, and what it was drawn for: see paintGutter.
    struct GutterKey {
        std::uint64_t layout = 0;
        int scrollY = 0;
        QSize size;
        qreal ratio = 0;
        qint64 palette = 0;
        QString font;
        bool operator==(const GutterKey &) const = default;
    };
    mutable QImage m_gutter;
    mutable GutterKey m_gutterKey;
    std::uint64_t m_layoutGeneration = 0; // counts relayouts
    ColorMode m_colorMode = ColorMode::ByCategory;
    std::set<std::uint32_t> m_collapsed;
    QScrollBar *m_scroll;

    std::optional<EventRef> m_selected;
    std::optional<std::pair<double, double>> m_range;
    std::vector<EventRef> m_highlights;
    std::optional<EventRef> m_currentHighlight;
    std::vector<Marker> m_markers;
    bool m_showAllFlows = false;
    bool m_wheelZooms = true;
    TrackOrder m_trackOrder = TrackOrder::DevicesFirst;

    enum class Drag { None, Pan, Range };
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    QPoint m_lastPos;
    double m_rangeAnchorNs = 0;
    bool m_moved = false;
    double m_cursorX = -1;
};

} // namespace pyrometer::ui::timeline
