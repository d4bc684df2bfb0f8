#include "ui/session/bookmarkmenu.h"

#include "core/util/format.h"
#include "ui/session/bookmarklist.h"
#include "ui/timeline/timelineindex.h"
#include "ui/timeline/timelinepage.h"
#include "ui/timeline/timelineview.h"
#include "ui/workspace/workspace.h"

#include "core/trace/trace.h"

#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>

#include <algorithm>

namespace pyrometer::ui {

namespace {
// A position bookmark opens this much time around it, unless the view is already narrower.
constexpr double kPositionWindowNs = 1e6;
} // namespace

BookmarkMenu::BookmarkMenu(BookmarkList *bookmarks, Workspace *workspace, timeline::TimelinePage *timeline, QWidget *parent)
    : QMenu(tr("&Bookmarks"), parent), m_bookmarks(bookmarks), m_workspace(workspace), m_timeline(timeline),
      m_add(new QAction(tr("&Add bookmark…"), this))
{
    m_add->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    m_add->setToolTip(tr("Bookmark the timeline's selected range, or the middle of the view"));
    connect(m_add, &QAction::triggered, this, [this] {
        QString name = tr("Bookmark %1").arg(m_bookmarks->bookmarks().size() + 1);
        if (m_interactive) {
            bool ok = false;
            name = QInputDialog::getText(parentWidget(), tr("Add bookmark"), tr("Name:"), QLineEdit::Normal, name, &ok);
            if (!ok)
                return;
        }
        addBookmark(name);
    });
    connect(m_bookmarks, &BookmarkList::changed, this, &BookmarkMenu::rebuild);
    connect(m_bookmarks, &BookmarkList::changed, this, &BookmarkMenu::showMarkers);
    // Adding needs a trace in the timeline.
    connect(m_timeline, &timeline::TimelinePage::traceShown, this, [this] {
        m_add->setEnabled(true);
        showMarkers();
    });
    m_add->setEnabled(false);
    rebuild();
}

bool BookmarkMenu::addBookmark(const QString &name)
{
    const auto document = m_workspace->trace(m_timeline->currentTrace());
    const auto *view = m_timeline->view();
    if (!document || !view->index())
        return false;
    session::Bookmark bookmark;
    bookmark.trace = document->path.toStdString();
    bookmark.name = (name.trimmed().isEmpty() ? tr("Bookmark") : name.trimmed()).toStdString();
    if (const auto range = view->selectedRange(); range && range->second > range->first) {
        bookmark.startNs = std::int64_t(range->first);
        bookmark.endNs = std::int64_t(range->second);
    } else {
        const auto &viewport = view->viewport();
        bookmark.startNs = bookmark.endNs = std::int64_t((viewport.startNs + viewport.endNs()) / 2);
    }
    m_bookmarks->add(std::move(bookmark));
    return true;
}

void BookmarkMenu::goTo(std::size_t index)
{
    if (index >= m_bookmarks->bookmarks().size())
        return;
    const auto bookmark = m_bookmarks->bookmarks()[index];
    std::shared_ptr<const TraceDocument> document;
    for (const auto &[id, open] : m_workspace->traces())
        if (open->path == QString::fromStdString(bookmark.trace))
            document = open;
    if (!document)
        return;
    Q_EMIT timelineRequested();
    const double start = double(bookmark.startNs);
    const double end = double(bookmark.endNs);
    if (m_timeline->currentTrace() == document->id && m_timeline->view()->index() &&
        m_timeline->view()->index()->trace == document->trace) {
        reveal(start, end);
        return;
    }
    // Another trace: go there once it is indexed.
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(m_timeline, &timeline::TimelinePage::traceShown, this, [this, connection, start, end] {
        disconnect(*connection);
        reveal(start, end);
    });
    m_timeline->chooseTrace(document->id);
}

void BookmarkMenu::reveal(double startNs, double endNs)
{
    auto *view = m_timeline->view();
    if (endNs > startNs) {
        const double margin = (endNs - startNs) * 0.05;
        view->setVisibleRange(startNs - margin, endNs + margin);
        view->selectRange(startNs, endNs);
        return;
    }
    const double half = std::min(kPositionWindowNs, view->viewport().endNs() - view->viewport().startNs) / 2;
    view->setVisibleRange(startNs - half, startNs + half);
}

void BookmarkMenu::showMarkers()
{
    std::vector<timeline::TimelineView::Marker> markers;
    if (const auto document = m_workspace->trace(m_timeline->currentTrace())) {
        const auto path = document->path.toStdString();
        for (const auto &bookmark : m_bookmarks->bookmarks())
            if (bookmark.trace == path)
                markers.push_back({double(bookmark.startNs), double(bookmark.endNs), QString::fromStdString(bookmark.name)});
    }
    m_timeline->view()->setMarkers(std::move(markers));
}

void BookmarkMenu::rebuild()
{
    // Not clear(): it would delete the Add action along with the entries.
    for (auto *action : actions()) {
        if (action == m_add)
            continue;
        removeAction(action);
        if (action->parent() == this)
            delete action;
    }
    if (!actions().contains(m_add))
        addAction(m_add);
    const auto &bookmarks = m_bookmarks->bookmarks();
    if (!bookmarks.empty())
        addSeparator();
    for (std::size_t i = 0; i < bookmarks.size(); ++i) {
        const auto &b = bookmarks[i];
        // Times from the trace's start, as the ruler shows them, when the trace is open.
        std::int64_t origin = 0;
        for (const auto &[id, document] : m_workspace->traces()) {
            if (document->path.toStdString() == b.trace)
                origin = document->trace->info.spanStart;
        }
        const auto text = [](std::int64_t ns) { return QString::fromStdString(formatDuration(ns)); };
        const QString where = b.isPosition() ? tr("at %1").arg(text(b.startNs - origin))
                                             : tr("%1 from %2").arg(text(b.endNs - b.startNs), text(b.startNs - origin));
        addAction(QStringLiteral("%1  (%2, %3)")
                      .arg(QString::fromStdString(b.name), QFileInfo(QString::fromStdString(b.trace)).fileName(), where),
                  this, [this, i] { goTo(i); });
    }
    if (!bookmarks.empty()) {
        addSeparator();
        addAction(tr("&Remove all bookmarks"), m_bookmarks, &BookmarkList::clear);
    }
}

} // namespace pyrometer::ui
