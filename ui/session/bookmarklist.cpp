#include "ui/session/bookmarklist.h"

namespace pyrometer::ui {

void BookmarkList::add(session::Bookmark bookmark)
{
    m_bookmarks.push_back(std::move(bookmark));
    Q_EMIT changed();
}

void BookmarkList::removeAt(std::size_t index)
{
    if (index >= m_bookmarks.size())
        return;
    m_bookmarks.erase(m_bookmarks.begin() + std::ptrdiff_t(index));
    Q_EMIT changed();
}

void BookmarkList::setBookmarks(std::vector<session::Bookmark> bookmarks)
{
    m_bookmarks = std::move(bookmarks);
    Q_EMIT changed();
}

} // namespace pyrometer::ui
