#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QObject>

#include "core/session/sessionfile.h"

#include <vector>

namespace pyrometer::ui {

// The timeline bookmarks of every open trace: a named position or range, saved with the
// session and listed in the Bookmarks menu.
class BookmarkList final : public QObject {
    Q_OBJECT
public:
    explicit BookmarkList(QObject *parent = nullptr) : QObject(parent) {}

    const std::vector<session::Bookmark> &bookmarks() const { return m_bookmarks; }
    void add(session::Bookmark bookmark);
    void removeAt(std::size_t index);
    void setBookmarks(std::vector<session::Bookmark> bookmarks);
    void clear() { setBookmarks({}); }

Q_SIGNALS:
    void changed();

private:
    std::vector<session::Bookmark> m_bookmarks;
};

} // namespace pyrometer::ui
