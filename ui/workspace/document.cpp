#include "ui/workspace/document.h"

#include <QFileInfo>

#include <algorithm>

namespace pyrometer::ui {

std::size_t AnalysisCache::size() const
{
    const std::lock_guard lock(m_mutex);
    return m_entries.size();
}

std::shared_ptr<const void> AnalysisCache::find(const std::function<bool(const Entry &)> &matches) const
{
    const std::lock_guard lock(m_mutex);
    const auto found = std::find_if(m_entries.begin(), m_entries.end(), matches);
    if (found == m_entries.end())
        return nullptr;
    m_entries.splice(m_entries.begin(), m_entries, found);
    return m_entries.front().value;
}

std::shared_ptr<const void> AnalysisCache::insert(Entry entry, const std::function<bool(const Entry &)> &matches) const
{
    std::list<Entry> evicted;
    const std::lock_guard lock(m_mutex);
    if (const auto found = std::find_if(m_entries.begin(), m_entries.end(), matches); found != m_entries.end())
        return found->value;
    m_entries.push_front(std::move(entry));
    while (m_entries.size() > kCapacity)
        evicted.splice(evicted.begin(), m_entries, std::prev(m_entries.end()));
    return m_entries.front().value;
}

QString TraceDocument::fileName() const
{
    return QFileInfo(path).fileName();
}

QString TraceDocument::jobOwnerOf(DocumentId id)
{
    return QStringLiteral("document:%1").arg(id);
}

QString ModelDocument::fileName() const
{
    return QFileInfo(path).fileName();
}

} // namespace pyrometer::ui
