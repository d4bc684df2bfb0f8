#include "ui/workspace/workspace.h"

#include "core/trace/loader.h"
#include "ui/jobs/jobtracker.h"

#include <QFileInfo>

namespace pyrometer::ui {

Workspace::Workspace(JobTracker *jobs, QObject *parent) : QObject(parent), m_jobs(jobs)
{
    connect(jobs, &JobTracker::finished, this, [this](JobTracker::JobId id, const QString &, JobOutcome outcome, const QString &) {
        const QString path = m_traceJobs.take(id);
        if (!path.isEmpty() && outcome == JobOutcome::Failed)
            Q_EMIT traceLoadFailed(path);
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
    case trace::InputKind::LogDirectory: {
        auto runs = trace::discoverRuns(fsPath);
        if (runs.empty()) {
            Q_EMIT openFailed(QString::fromStdString(trace::noTracesMessage(path.toStdString())));
            return;
        }
        Q_EMIT logDirectoryFound(path, runs);
        return;
    }
    }
}

int Workspace::traceIndexOf(const QString &path) const
{
    const auto canonical = [](const QString &p) {
        const auto resolved = QFileInfo(p).canonicalFilePath();
        return resolved.isEmpty() ? QFileInfo(p).absoluteFilePath() : resolved;
    };
    const auto wanted = canonical(path);
    const auto modified = QFileInfo(path).lastModified();
    for (std::size_t i = 0; i < m_traces.size(); ++i)
        if (canonical(m_traces[i].path) == wanted && m_traces[i].modified == modified)
            return int(i);
    return -1;
}

void Workspace::openTrace(const QString &path, bool partial)
{
    if (const int open = traceIndexOf(path); open >= 0) {
        Q_EMIT fileOpened(path);
        Q_EMIT traceOpenedAgain(open);
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
}

void Workspace::openModel(const QString &path)
{
    const std::filesystem::path file = path.toStdString();
    m_jobs->run<torch::ModelInfo>(
        tr("Loading model %1").arg(QFileInfo(path).fileName()), QString(),
        [file](ProgressReporter &, const StopToken &) { return torch::inspectModel(file); },
        this,
        [this, path](torch::ModelInfo info) {
            m_models.push_back({path, std::move(info)});
            Q_EMIT fileOpened(path);
            Q_EMIT modelOpened(int(m_models.size()) - 1);
        });
}

} // namespace pyrometer::ui
