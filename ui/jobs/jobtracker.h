#pragma once

#include "core/util/progress.h"
#include "core/util/result.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QThreadPool>

#include <atomic>
#include <exception>
#include <memory>
#include <utility>

namespace pyrometer::ui {

// Superseded: a newer job with the same key replaced it (nobody asked to stop it, so the
// window does not report it as cancelled).
enum class JobOutcome { Succeeded, Failed, Cancelled, Superseded };

// Runs long work (parsing, analysis, model runs) off the GUI thread and tracks it for the
// status bar. Work receives a ProgressReporter (0..1000, throttled) and a StopToken it must
// check in its loops; it returns Result<T>. On success, onSuccess(value) runs on the GUI
// thread, unless its context object is gone, the job was cancelled, or a newer job with the
// same key replaced it. Every failure is announced once, through finished(), so the window
// can show it; the work never sees `this`.
class JobTracker final : public QObject {
    Q_OBJECT
public:
    using JobId = quint64;

    explicit JobTracker(QObject *parent = nullptr);
    ~JobTracker() override; // cancels every job and waits for the workers

    // key: a job started with the same non-empty key cancels and supersedes this one.
    template <typename T, typename Work, typename OnSuccess>
    JobId run(const QString &title, const QString &key, Work work, QObject *context, OnSuccess onSuccess)
    {
        const JobId id = beginJob(title, key);
        const StopToken stop = m_jobs.value(id).stop;
        const auto running = m_jobs.value(id).running;
        QPointer<JobTracker> self(this);
        auto sink = [self, id](int permille) {
            // The tracker outlives its workers (its destructor waits for them).
            QMetaObject::invokeMethod(self.data(), [self, id, permille] { self->setProgress(id, permille); },
                                      Qt::QueuedConnection);
        };
        QPointer<QObject> guard(context);
        // The result is always posted back, never delivered inside run(): a caller gets the id
        // before it can hear of the job's end, however fast the work is.
        m_pool.start([work = std::move(work), stop, sink, self, id, guard, running, title,
                      onSuccess = std::move(onSuccess)]() mutable {
            running->store(true);
            ProgressReporter progress(sink);
            // A job's exception (a library's, a bad_alloc) is its error: the window goes on.
            Result<T> result = [&]() -> Result<T> {
                try {
                    return work(progress, stop);
                } catch (const std::exception &error) {
                    return Error{title.toStdString() + ": " + error.what()};
                } catch (...) {
                    return Error{title.toStdString() + ": failed with an exception of no known type"};
                }
            }();
            if (result.ok())
                progress.finish();
            QMetaObject::invokeMethod(
                self.data(),
                [self, id, guard, onSuccess = std::move(onSuccess), result = std::move(result)]() mutable {
                    const auto [job, outcome] = self->takeJob(id, result.ok());
                    // Deliver before announcing, so that jobs started by onSuccess keep the
                    // tracker busy.
                    if (outcome == JobOutcome::Succeeded && guard)
                        onSuccess(std::move(result).value());
                    self->announce(id, job.title, outcome,
                                   result.ok() ? QString() : QString::fromStdString(result.error().message));
                },
                Qt::QueuedConnection);
        });
        return id;
    }

    bool isIdle() const { return m_jobs.isEmpty(); }
    int workerCount() const { return m_pool.maxThreadCount(); }
    int activeCount() const { return int(m_jobs.size()); }
    QList<JobId> activeJobs() const;
    QString title(JobId id) const { return m_jobs.value(id).title; }
    int progress(JobId id) const { return m_jobs.value(id).permille; }

    // Jobs computing for a document carry it as an owner (TraceDocument::jobOwner()): a job
    // comparing two has both.
    void addOwner(JobId id, const QString &owner);

public Q_SLOTS:
    void cancel(JobId id);
    // Stops jobs whose results nobody wants any more (their document was closed): they end
    // as Superseded, which the window does not report.
    void abandon(JobId id);
    void abandonOwnedBy(const QString &owner);
    void cancelAll();
    // Cancels the jobs a worker has started; those still waiting for one start next. When
    // every job is waiting, cancels them all.
    void cancelRunning();

Q_SIGNALS:
    void started(JobId id, const QString &title);
    void progressChanged(JobId id, int permille);
    // message is empty on success; for a failure it names the file and the problem.
    void finished(JobId id, const QString &title, pyrometer::ui::JobOutcome outcome, const QString &message);
    void becameIdle();

private:
    struct Job {
        QString title;
        QString key;
        QStringList owners;
        StopToken stop;
        int permille = -1; // -1 until the work reports progress
        bool cancelled = false;
        bool superseded = false; // cancelled by a newer job with the same key
        std::shared_ptr<std::atomic<bool>> running = std::make_shared<std::atomic<bool>>(false); // a worker runs it
    };

    JobId beginJob(const QString &title, const QString &key);
    void setProgress(JobId id, int permille);
    std::pair<Job, JobOutcome> takeJob(JobId id, bool ok);
    void announce(JobId id, const QString &title, JobOutcome outcome, const QString &message);

    QThreadPool m_pool;
    QHash<JobId, Job> m_jobs;
    JobId m_nextId = 1;
};

} // namespace pyrometer::ui
