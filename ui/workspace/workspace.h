#pragma once

#include "core/trace/tracesource.h"
#include "ui/workspace/document.h"

#include <QDateTime>
#include <QHash>
#include <QSet>
#include <QObject>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <vector>

namespace pyrometer::ui {

class JobTracker;

// What the user has open: trace and model documents, by id. Opening runs a background job
// (for a trace: loading it and building its analysis index); the documents it yields are
// shared with the pages, which ask them for what they show. A failed open changes nothing
// that was already open. Closing a document cancels its jobs, tells the pages to let it go,
// and returns its memory once the last of them has.
class Workspace final : public QObject {
    Q_OBJECT
public:
    explicit Workspace(JobTracker *jobs, QObject *parent = nullptr);

    // Decides from the path what it is: a trace file, a TensorBoard log directory (whose runs
    // are offered through logDirectoryFound), or a model. A folder whose traces are the ranks
    // of one job (analysis::ranksOfOneJob) opens as that job (jobFolderFound) unless
    // folderAsTraces.
    void open(const QString &path, bool folderAsTraces = false);
    // partial: load the valid prefix of a truncated or damaged file, with a warning. A trace
    // that is open already is not loaded twice: traceOpenedAgain names it (and nothing happens
    // while it is still loading).
    void openTrace(const QString &path, bool partial = false);
    // The id of the open trace at path (the same file, however the path is written, not
    // rewritten since it was read), or kNoDocument.
    DocumentId traceIdOf(const QString &path) const;
    // A model that is open already is not loaded twice: modelOpenedAgain names it.
    void openModel(const QString &path);
    DocumentId modelIdOf(const QString &path) const;
    // Asks every page that shows one trace at a time to show trace id.
    void selectTrace(DocumentId id);

    // Open documents by id, oldest first.
    const std::map<DocumentId, std::shared_ptr<const TraceDocument>> &traces() const { return m_traces; }
    const std::map<DocumentId, std::shared_ptr<const ModelDocument>> &models() const { return m_models; }
    // The open document with this id, or null.
    std::shared_ptr<const TraceDocument> trace(DocumentId id) const;
    std::shared_ptr<const ModelDocument> model(DocumentId id) const;
    // The newest open trace, or kNoDocument: where a page goes when its trace is closed.
    DocumentId newestTrace() const { return m_traces.empty() ? kNoDocument : m_traces.rbegin()->first; }
    DocumentId newestModel() const { return m_models.empty() ? kNoDocument : m_models.rbegin()->first; }

    // Opens a distributed job: paths are a folder of rank traces or the rank trace files. One
    // background job summarises every rank (jobOpened), a second loads the ranks the Timeline
    // shows and combines them into one trace, opened as any other (traceOpened, then
    // jobTimelineChanged). The same files as an open job's show that job again (jobOpened with
    // its id). A file that is missing or not a trace fails the job, with a message that names
    // it; nothing open changes.
    void openJob(const QStringList &paths);
    // Open jobs by id, oldest first.
    std::vector<DocumentId> jobDocuments() const;
    std::shared_ptr<const JobDocument> jobDocument(DocumentId id) const;
    DocumentId newestJob() const { return m_jobDocuments.empty() ? kNoDocument : m_jobDocuments.rbegin()->first; }

    // Closing a job's combined trace leaves the job open without it.
    void closeTrace(DocumentId id);
    void closeModel(DocumentId id);
    // Closes the job and its combined trace.
    void closeJob(DocumentId id);
    // Closes every document and stops loading any.
    void closeAll();

Q_SIGNALS:
    void traceOpened(pyrometer::ui::DocumentId id);
    // An open trace was asked for again: the pages show it, as for a new one.
    void traceOpenedAgain(pyrometer::ui::DocumentId id);
    void modelOpened(pyrometer::ui::DocumentId id);
    void modelOpenedAgain(pyrometer::ui::DocumentId id);
    // The pages that show one trace at a time move to trace id (an open trace opened again,
    // a restored session's current trace).
    void traceSelected(pyrometer::ui::DocumentId id);
    // A document was closed: pages showing it move on to another (or to their empty state)
    // and drop what they hold of it. The workspace no longer lists it.
    void traceClosed(pyrometer::ui::DocumentId id);
    void modelClosed(pyrometer::ui::DocumentId id);
    // A job was opened, or its files were asked for again.
    void jobOpened(pyrometer::ui::DocumentId id);
    // The job's combined trace is open (its timelineTrace), or was closed (kNoDocument).
    void jobTimelineChanged(pyrometer::ui::DocumentId id);
    void jobClosed(pyrometer::ui::DocumentId id);
    // A log directory was opened: the user picks which of its files to open.
    void logDirectoryFound(const QString &path, const std::vector<pyrometer::trace::LogRun> &runs);
    // A folder of the rank traces of one job, to open with openJob.
    void jobFolderFound(const QString &path);
    // Problems found before any job starts (a missing path, a directory with no traces).
    // Failures of the load jobs themselves come through JobTracker::finished.
    void openFailed(const QString &message);
    // Loading a trace failed (the message also comes through JobTracker::finished): the window
    // can offer to load its valid part, unless that was what failed (partial).
    void traceLoadFailed(const QString &path, const QString &message, bool partial);
    // A file was opened successfully: for the recent-files list.
    void fileOpened(const QString &path);

private:
    void afterClose(DocumentId id);
    void loadJobTimeline(DocumentId id);

    JobTracker *m_jobs;
    QHash<quint64, QString> m_traceJobs; // running trace loads: job id -> path
    QSet<quint64> m_partialJobs;         // those that load a valid part
    QHash<quint64, QString> m_modelJobs; // running model loads: job id -> canonical path
    QSet<QString> m_loadingModels;
    QSet<quint64> m_jobSummaries; // running summaries of jobs not open yet
    std::map<DocumentId, std::shared_ptr<const TraceDocument>> m_traces;
    std::map<DocumentId, std::shared_ptr<const ModelDocument>> m_models;
    // Changed only on the GUI thread (their timeline trace comes and goes); shared as const.
    std::map<DocumentId, std::shared_ptr<JobDocument>> m_jobDocuments;
    DocumentId m_nextId = 1;
};

} // namespace pyrometer::ui
