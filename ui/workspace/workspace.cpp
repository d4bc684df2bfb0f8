#include "ui/workspace/workspace.h"

#include "core/trace/loader.h"
#include "ui/jobs/jobtracker.h"

#include <QFileInfo>

namespace pyrometer::ui {

Workspace::Workspace(JobTracker *jobs, QObject *parent) : QObject(parent), m_jobs(jobs)
{
    connect(jobs, &JobTracker::finished, this,
            [this](JobTracker::JobId id, const QString &, JobOutcome outcome, const QString &message) {
        m_loadingModels.remove(m_modelJobs.take(id));
        const QString path = m_traceJobs.take(id);
        const bool partial = m_partialJobs.remove(id);
        if (!path.isEmpty() && outcome == JobOutcome::Failed)
            Q_EMIT traceLoadFailed(path, message, partial);
    });
}

void Workspace::open(const QString &path)
{
    const std::filesystem::path fsPath = path.toStdString();
    switch (trace::classifyInput(fsPath)) {
    case trace::InputKind::Missing:
        Q_EMIT openFailed(tr("%1: no such file or directory").arg(path));
        return;
    case trace::InputKind::TraceFile:
        openTrace(path);
        return;
    case trace::InputKind::Model:
        openModel(path);
        return;
    case trace::InputKind::LogDirectory:
        // Listing reads the first bytes of every .json[.gz] whose name does not say it is a
        // trace: file I/O, off the GUI thread.
        m_jobs->run<std::vector<trace::LogRun>>(
            tr("Listing the traces in %1").arg(QFileInfo(path).fileName()), QString(),
            [fsPath](ProgressReporter &, const StopToken &) -> Result<std::vector<trace::LogRun>> { return trace::discoverRuns(fsPath); },
            this, [this, path](std::vector<trace::LogRun> runs) {
                if (runs.empty())
                    Q_EMIT openFailed(QString::fromStdString(trace::noTracesMessage(path.toStdString())));
                else
                    Q_EMIT logDirectoryFound(path, runs);
            });
        return;
    }
}

namespace {

// The same file however its path is written: the canonical path where the file exists.
QString canonicalPath(const QString &path)
{
    const auto resolved = QFileInfo(path).canonicalFilePath();
    return resolved.isEmpty() ? QFileInfo(path).absoluteFilePath() : resolved;
}

// The index of the document read from path (not rewritten since), or -1.
template <typename Document>
int documentIndexOf(const std::vector<Document> &documents, const QString &path)
{
    const auto wanted = canonicalPath(path);
    const auto modified = QFileInfo(path).lastModified();
    for (std::size_t i = 0; i < documents.size(); ++i)
        if (canonicalPath(documents[i].path) == wanted && documents[i].modified == modified)
            return int(i);
    return -1;
}

} // namespace

int Workspace::traceIndexOf(const QString &path) const
{
    return documentIndexOf(m_traces, path);
}

int Workspace::modelIndexOf(const QString &path) const
{
    return documentIndexOf(m_models, path);
}

void Workspace::selectTrace(int index)
{
    if (index >= 0 && std::size_t(index) < m_traces.size())
        Q_EMIT traceSelected(index);
}

void Workspace::openTrace(const QString &path, bool partial)
{
    if (const int open = traceIndexOf(path); open >= 0) {
        Q_EMIT fileOpened(path);
        Q_EMIT traceOpenedAgain(open);
        Q_EMIT traceSelected(open);
        return;
    }
    for (const auto &loading : m_traceJobs)
        if (QFileInfo(loading) == QFileInfo(path))
            return;
    const std::filesystem::path file = path.toStdString();
    const auto modified = QFileInfo(path).lastModified();
    trace::LoadOptions options;
    options.partial = partial;
    const auto id = m_jobs->run<std::shared_ptr<const trace::Trace>>(
        tr("Loading %1").arg(QFileInfo(path).fileName()), QString(),
        [file, options](ProgressReporter &progress, const StopToken &stop) {
            return trace::loadTrace(file, options, progress, stop);
        },
        this,
        [this, path, modified](std::shared_ptr<const trace::Trace> loaded) {
            m_traces.push_back({path, std::move(loaded), modified});
            Q_EMIT fileOpened(path);
            Q_EMIT traceOpened(int(m_traces.size()) - 1);
        });
    m_traceJobs.insert(id, path);
    if (partial)
        m_partialJobs.insert(id);
}

void Workspace::openModel(const QString &path)
{
    if (const int open = modelIndexOf(path); open >= 0) {
        Q_EMIT fileOpened(path);
        Q_EMIT modelOpenedAgain(open);
        return;
    }
    if (m_loadingModels.contains(canonicalPath(path)))
        return;
    m_loadingModels.insert(canonicalPath(path));
    const std::filesystem::path file = path.toStdString();
    const auto modified = QFileInfo(path).lastModified();
    const auto id = m_jobs->run<torch::ModelInfo>(
        tr("Loading model %1").arg(QFileInfo(path).fileName()), QString(),
        [file](ProgressReporter &, const StopToken &) { return torch::inspectModel(file); },
        this,
        [this, path, modified](torch::ModelInfo info) {
            m_models.push_back({path, std::move(info), modified});
            Q_EMIT fileOpened(path);
            Q_EMIT modelOpened(int(m_models.size()) - 1);
        });
    m_modelJobs.insert(id, canonicalPath(path));
}

} // namespace pyrometer::ui
