#include "ui/jobs/jobtracker.h"

#include <algorithm>

namespace pyrometer::ui {

JobTracker::JobTracker(QObject *parent) : QObject(parent)
{
    // Parsing and model runs are memory-heavy; two at a time is plenty on a desktop.
    m_pool.setMaxThreadCount(std::max(2, QThread::idealThreadCount() / 2));
}

JobTracker::~JobTracker()
{
    for (auto &job : m_jobs)
        job.stop.requestStop();
    m_pool.waitForDone();
}

QList<JobTracker::JobId> JobTracker::activeJobs() const
{
    auto ids = m_jobs.keys();
    std::sort(ids.begin(), ids.end());
    return ids;
}

JobTracker::JobId JobTracker::beginJob(const QString &title, const QString &key)
{
    if (!key.isEmpty()) {
        for (auto it = m_jobs.begin(); it != m_jobs.end(); ++it) {
            if (it->key == key && !it->cancelled)
                abandon(it.key());
        }
    }
    const JobId id = m_nextId++;
    m_jobs.insert(id, Job{title, key, QStringList(), StopToken(), -1, false, false, std::make_shared<std::atomic<bool>>(false)});
    Q_EMIT started(id, title);
    return id;
}

void JobTracker::setProgress(JobId id, int permille)
{
    auto it = m_jobs.find(id);
    if (it == m_jobs.end() || it->permille == permille)
        return;
    it->permille = permille;
    Q_EMIT progressChanged(id, permille);
}

std::pair<JobTracker::Job, JobOutcome> JobTracker::takeJob(JobId id, bool ok)
{
    Job job = m_jobs.take(id);
    const JobOutcome outcome = job.superseded  ? JobOutcome::Superseded
                               : job.cancelled ? JobOutcome::Cancelled
                               : ok            ? JobOutcome::Succeeded
                                               : JobOutcome::Failed;
    return {std::move(job), outcome};
}

void JobTracker::announce(JobId id, const QString &title, JobOutcome outcome, const QString &message)
{
    Q_EMIT finished(id, title, outcome, outcome == JobOutcome::Failed ? message : QString());
    if (m_jobs.isEmpty())
        Q_EMIT becameIdle();
}

void JobTracker::cancel(JobId id)
{
    auto it = m_jobs.find(id);
    if (it == m_jobs.end())
        return;
    it->cancelled = true;
    it->stop.requestStop();
}

void JobTracker::addOwner(JobId id, const QString &owner)
{
    if (auto it = m_jobs.find(id); it != m_jobs.end())
        it->owners.append(owner);
}

void JobTracker::abandon(JobId id)
{
    auto it = m_jobs.find(id);
    if (it == m_jobs.end())
        return;
    it->cancelled = true;
    it->superseded = true;
    it->stop.requestStop();
}

void JobTracker::abandonOwnedBy(const QString &owner)
{
    for (auto it = m_jobs.begin(); it != m_jobs.end(); ++it)
        if (it->owners.contains(owner))
            abandon(it.key());
}

void JobTracker::cancelRunning()
{
    const auto ids = m_jobs.keys();
    const bool anyRunning = std::any_of(ids.begin(), ids.end(), [this](JobId id) { return m_jobs.value(id).running->load(); });
    for (const auto id : ids)
        if (!anyRunning || m_jobs.value(id).running->load())
            cancel(id);
}

void JobTracker::cancelAll()
{
    for (auto id : m_jobs.keys())
        cancel(id);
}

} // namespace pyrometer::ui
