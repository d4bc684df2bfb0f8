#include "ui/workspace/document.h"

#include <QFileInfo>
#include <QObject>

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
    return title.isEmpty() ? QFileInfo(path).fileName() : title;
}

QString TraceDocument::jobOwnerOf(DocumentId id)
{
    return QStringLiteral("document:%1").arg(id);
}

QString ModelDocument::fileName() const
{
    return QFileInfo(path).fileName();
}

QString JobDocument::title() const
{
    const QString first = files.isEmpty() ? QString() : QFileInfo(files.front()).fileName();
    const int ranks = int(figures.ranks.size());
    const QString count = ranks == 1 ? QObject::tr("1 rank") : QObject::tr("%1 ranks").arg(ranks);
    return files.size() > 1 ? QObject::tr("job: %1 (%2 …)").arg(count, first) : QObject::tr("job: %1 (%2)").arg(count, first);
}

int JobDocument::timelinePosition(std::size_t rankIndex) const
{
    const auto found = std::find(timelineRanks.begin(), timelineRanks.end(), rankIndex);
    return found == timelineRanks.end() ? -1 : int(found - timelineRanks.begin());
}

} // namespace pyrometer::ui
