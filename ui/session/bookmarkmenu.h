#pragma once

#include <QMenu>

namespace pyrometer::ui {

class BookmarkList;
class Workspace;
namespace timeline {
class TimelinePage;
}

// The Bookmarks menu: "Add bookmark" names the timeline's selected range (or the middle of the
// view) in the trace shown, and each bookmark below it takes the timeline there.
class BookmarkMenu final : public QMenu {
    Q_OBJECT
public:
    BookmarkMenu(BookmarkList *bookmarks, Workspace *workspace, timeline::TimelinePage *timeline, QWidget *parent = nullptr);

    // When false (tests, screenshots), Add bookmark takes the default name without asking.
    void setInteractive(bool interactive) { m_interactive = interactive; }
    QAction *addBookmarkAction() const { return m_add; }

    // Bookmarks the timeline's range, or its middle when no range is selected. False when no
    // trace is shown.
    bool addBookmark(const QString &name);
    // Shows the trace of bookmark `index` in the timeline, zoomed to it.
    void goTo(std::size_t index);

Q_SIGNALS:
    // The timeline should be shown.
    void timelineRequested();

private:
    void rebuild();
    void reveal(double startNs, double endNs);
    // Draws the bookmarks of the trace the timeline shows on it.
    void showMarkers();

    BookmarkList *m_bookmarks;
    Workspace *m_workspace;
    timeline::TimelinePage *m_timeline;
    QAction *m_add;
    bool m_interactive = true;
};

} // namespace pyrometer::ui
