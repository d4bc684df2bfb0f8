#include "ui/workspace/workspace.h"

#include "core/analysis/job.h"
#include "core/summary/jobsource.h"
#include "core/summary/summaryfile.h"
#include "core/summary/timelineranks.h"
#include "core/trace/loader.h"
#include "ui/jobs/jobtracker.h"
#include "ui/workspace/jobload.h"
#include "ui/workspace/memoryrelease.h"
#include "ui/record/recordsettings.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

#include <type_traits>

namespace pyrometer::ui {

namespace {

// A file's or folder's name as messages show it: "logs" for "runs/logs/" too, where
// QFileInfo::fileName() is empty.
QString shownName(const QString &path)
{
    const QString name = QFileInfo(QDir::cleanPath(path)).fileName();
    return name.isEmpty() ? path : name;
}

} // namespace

Workspace::Workspace(JobTracker *jobs, QObject *parent) : QObject(parent), m_jobs(jobs)
{
    connect(jobs, &JobTracker::finished, this,
            [this](JobTracker::JobId id, const QString &, JobOutcome outcome, const QString &message) {
        m_loadingModels.remove(m_modelJobs.take(id));
        m_jobSummaries.remove(id);
        const QString path = m_traceJobs.take(id);
        const bool partial = m_partialJobs.remove(id);
        if (!path.isEmpty() && outcome == JobOutcome::Failed)
            Q_EMIT traceLoadFailed(path, message, partial);
    });
}

void Workspace::open(const QString &path, bool folderAsTraces)
{
    const std::filesystem::path fsPath = path.toStdString();
    switch (trace::classifyInput(fsPath)) {
    case trace::InputKind::Missing:
        Q_EMIT openFailed(tr("%1: no such file or directory").arg(path));
        return;
    case trace::InputKind::TraceFile:
        // A rank summary or a merged job (pyrometer-cli summarize, merge) opens as a job.
        if (summary::isSummaryFile(fsPath))
            openJob({path});
        else
            openTrace(path);
        return;
    case trace::InputKind::Model:
        openModel(path);
        return;
    case trace::InputKind::LogDirectory: {
        // Listing reads the first bytes of every .json[.gz] whose name does not say it is a
        // trace, and of every trace for its rank: file I/O, off the GUI thread.
        struct Folder {
            std::vector<trace::LogRun> runs;
            bool job = false;
        };
        m_jobs->run<Folder>(
            tr("Listing the traces in %1").arg(shownName(path)), QString(),
            [fsPath, folderAsTraces](ProgressReporter &, const StopToken &) -> Result<Folder> {
                Folder folder{trace::discoverRuns(fsPath)};
                if (!folderAsTraces && folder.runs.size() == 1) {
                    std::vector<std::filesystem::path> files;
                    for (const auto &file : folder.runs.front().files)
                        files.push_back(file.path);
                    folder.job = analysis::ranksOfOneJob(files);
                }
                return folder;
            },
            this, [this, path](Folder folder) {
                const auto &runs = folder.runs;
                if (runs.empty())
                    Q_EMIT openFailed(QString::fromStdString(trace::noTracesMessage(path.toStdString())));
                else if (folder.job)
                    Q_EMIT jobFolderFound(path);
                else
                    Q_EMIT logDirectoryFound(path, runs);
            });
        return;
    }
    }
}

namespace {

// The same file however its path is written: the canonical path where the file exists.
QString canonicalPath(const QString &path)
{
    const auto resolved = QFileInfo(path).canonicalFilePath();
    return resolved.isEmpty() ? QFileInfo(path).absoluteFilePath() : resolved;
}

// The id of the document read from path (not rewritten since), or kNoDocument.
template <typename Document>
DocumentId documentIdOf(const std::map<DocumentId, std::shared_ptr<const Document>> &documents, const QString &path)
{
    const auto wanted = canonicalPath(path);
    const auto modified = QFileInfo(path).lastModified();
    for (const auto &[id, document] : documents) {
        if constexpr (std::is_same_v<Document, TraceDocument>) {
            if (document->job != kNoDocument) // a job's combined ranks are no file's trace
                continue;
        }
        if (canonicalPath(document->path) == wanted && document->modified == modified)
            return id;
    }
    return kNoDocument;
}

template <typename Document>
std::shared_ptr<const Document> documentOf(const std::map<DocumentId, std::shared_ptr<const Document>> &documents, DocumentId id)
{
    const auto found = documents.find(id);
    return found == documents.end() ? nullptr : found->second;
}

} // namespace

DocumentId Workspace::traceIdOf(const QString &path) const
{
    return documentIdOf(m_traces, path);
}

DocumentId Workspace::modelIdOf(const QString &path) const
{
    return documentIdOf(m_models, path);
}

std::shared_ptr<const TraceDocument> Workspace::trace(DocumentId id) const
{
    return documentOf(m_traces, id);
}

std::shared_ptr<const ModelDocument> Workspace::model(DocumentId id) const
{
    return documentOf(m_models, id);
}

void Workspace::selectTrace(DocumentId id)
{
    if (m_traces.contains(id))
        Q_EMIT traceSelected(id);
}

void Workspace::closeTrace(DocumentId id)
{
    const auto document = trace(id);
    if (!document)
        return;
    m_traces.erase(id);
    Q_EMIT traceClosed(id);
    afterClose(id);
    if (const auto job = m_jobDocuments.find(document->job); job != m_jobDocuments.end() && job->second->timelineTrace == id) {
        job->second->timelineTrace = kNoDocument;
        Q_EMIT jobTimelineChanged(job->first);
    }
}

void Workspace::closeJob(DocumentId id)
{
    const auto found = m_jobDocuments.find(id);
    if (found == m_jobDocuments.end())
        return;
    const DocumentId timeline = found->second->timelineTrace;
    m_jobDocuments.erase(found);
    closeTrace(timeline);
    Q_EMIT jobClosed(id);
    afterClose(id);
}

std::vector<DocumentId> Workspace::jobDocuments() const
{
    std::vector<DocumentId> ids;
    for (const auto &[id, job] : m_jobDocuments)
        ids.push_back(id);
    return ids;
}

std::shared_ptr<const JobDocument> Workspace::jobDocument(DocumentId id) const
{
    const auto found = m_jobDocuments.find(id);
    return found == m_jobDocuments.end() ? nullptr : found->second;
}

void Workspace::openJob(const QStringList &paths)
{
    std::vector<std::filesystem::path> inputs;
    for (const auto &path : paths)
        inputs.emplace_back(path.toStdString());
    if (inputs.empty())
        return;
    struct Summary {
        std::vector<std::filesystem::path> files;
        analysis::JobFigures figures;
    };
    const QString name = paths.size() == 1 ? shownName(paths.front()) : tr("%1 files").arg(paths.size());
    const auto id = m_jobs->run<Summary>(
        tr("Summarising the ranks of %1").arg(name), QString(),
        [inputs](ProgressReporter &progress, const StopToken &stop) -> Result<Summary> {
            auto files = analysis::jobFiles(inputs);
            if (!files.ok())
                return files.error();
            auto figures = summary::loadJob(files.value(), {}, progress, stop);
            if (!figures.ok())
                return figures.error();
            return Summary{std::move(files).value(), std::move(figures).value()};
        },
        this,
        [this](Summary summary) {
            QStringList files;
            for (const auto &file : summary.files)
                files.append(QString::fromStdString(file.string()));
            // The same files again: the job that is open already.
            const auto canonical = [](const QStringList &list) {
                QStringList resolved;
                for (const auto &path : list)
                    resolved.append(canonicalPath(path));
                return resolved;
            };
            for (const auto &[openId, open] : m_jobDocuments) {
                if (canonical(open->files) == canonical(files)) {
                    Q_EMIT jobOpened(openId);
                    return;
                }
            }
            auto job = std::make_shared<JobDocument>();
            job->id = m_nextId++;
            job->files = std::move(files);
            job->figures = std::move(summary.figures);
            auto chosen = summary::chooseTimelineRanks(job->figures);
            job->timelineRanks = std::move(chosen.ranks);
            job->timelineReason = QString::fromStdString(chosen.reason);
            const DocumentId opened = job->id;
            m_jobDocuments.emplace(opened, std::move(job));
            Q_EMIT jobOpened(opened);
            loadJobTimeline(opened);
        });
    m_jobSummaries.insert(id);
}

void Workspace::loadJobTimeline(DocumentId id)
{
    const std::shared_ptr<const JobDocument> job = jobDocument(id);
    if (!job || job->timelineRanks.empty())
        return;
    const auto loadId = m_jobs->run<LoadedTrace>(
        tr("Loading %1 ranks for the Timeline").arg(job->timelineRanks.size()), QString(),
        [job](ProgressReporter &progress, const StopToken &stop) {
            return loadCombinedRanks(job->figures, job->timelineRanks, progress, stop);
        },
        this,
        [this, id](LoadedTrace loaded) {
            const auto found = m_jobDocuments.find(id);
            if (found == m_jobDocuments.end())
                return;
            auto &opened = *found->second;
            auto document = std::make_shared<TraceDocument>();
            document->id = m_nextId++;
            document->path = opened.files.isEmpty() ? QString() : QFileInfo(opened.files.front()).absolutePath();
            // Named for the ranks it holds: "job: 8 of 256 ranks (rank-0.json.gz …)".
            document->title = opened.timelineRanks.size() == opened.figures.ranks.size()
                                  ? opened.title()
                                  : tr("job: %1 of %2 ranks (%3 …)")
                                        .arg(opened.timelineRanks.size())
                                        .arg(opened.figures.ranks.size())
                                        .arg(QFileInfo(opened.files.front()).fileName());
            document->job = id;
            document->trace = std::move(loaded.trace);
            document->index = std::move(loaded.index);
            opened.timelineTrace = document->id;
            m_traces.emplace(document->id, document);
            Q_EMIT traceOpened(document->id);
            Q_EMIT jobTimelineChanged(id);
        });
    m_jobs->addOwner(loadId, TraceDocument::jobOwnerOf(id));
}

void Workspace::closeModel(DocumentId id)
{
    if (m_models.erase(id) == 0)
        return;
    Q_EMIT modelClosed(id);
    afterClose(id);
}

void Workspace::afterClose(DocumentId id)
{
    // Its jobs hold it until they return: stop them, quietly (nobody needs their results).
    m_jobs->abandonOwnedBy(TraceDocument::jobOwnerOf(id));
    releaseFreedMemoryLater(m_jobs);
}

void Workspace::closeAll()
{
    for (const auto id : m_traceJobs.keys())
        m_jobs->abandon(id);
    for (const auto id : m_modelJobs.keys())
        m_jobs->abandon(id);
    for (const auto id : m_jobSummaries.values())
        m_jobs->abandon(id);
    while (!m_jobDocuments.empty())
        closeJob(m_jobDocuments.rbegin()->first);
    while (!m_traces.empty())
        closeTrace(m_traces.rbegin()->first);
    while (!m_models.empty())
        closeModel(m_models.rbegin()->first);
}

void Workspace::openTrace(const QString &path, bool partial)
{
    if (const auto open = traceIdOf(path); open != kNoDocument) {
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
    const auto id = m_jobs->run<LoadedTrace>(
        tr("Loading %1").arg(QFileInfo(path).fileName()), QString(),
        [file, options](ProgressReporter &progress, const StopToken &stop) -> Result<LoadedTrace> {
            // Reading is most of the work; indexing the last tenth.
            ProgressReporter reading([&progress](int permille) { progress.reportPermille(permille * 9 / 10); });
            auto loaded = trace::loadTrace(file, options, reading, stop);
            if (!loaded.ok())
                return loaded.error();
            auto index = analysis::buildTraceIndex(*loaded.value(), &stop);
            if (!index)
                return Error{"loading cancelled"};
            LoadedTrace result{std::move(loaded).value(), std::move(index), nullptr, {}};
            // A recorded program's memory by category lies beside its trace.
            if (const auto memoryFile = record::memoryFileFor(file); !memoryFile.empty() && std::filesystem::exists(memoryFile)) {
                auto categories = record::loadMemoryCategories(memoryFile);
                if (categories)
                    result.memoryCategories = std::make_shared<const record::MemoryCategories>(std::move(categories).value());
                else
                    result.memoryCategoriesError = QString::fromStdString(categories.error().message);
            }
            return result;
        },
        this,
        [this, path, modified](LoadedTrace loaded) {
            auto document = std::make_shared<TraceDocument>();
            document->id = m_nextId++;
            document->path = path;
            document->modified = modified;
            document->trace = std::move(loaded.trace);
            document->index = std::move(loaded.index);
            document->memoryCategories = std::move(loaded.memoryCategories);
            document->memoryCategoriesError = loaded.memoryCategoriesError;
            const DocumentId opened = document->id;
            m_traces.emplace(opened, std::move(document));
            Q_EMIT fileOpened(path);
            Q_EMIT traceOpened(opened);
        });
    m_traceJobs.insert(id, path);
    if (partial)
        m_partialJobs.insert(id);
}

void Workspace::openModel(const QString &path)
{
    if (const auto open = modelIdOf(path); open != kNoDocument) {
        Q_EMIT fileOpened(path);
        Q_EMIT modelOpenedAgain(open);
        return;
    }
    if (m_loadingModels.contains(canonicalPath(path)))
        return;
    m_loadingModels.insert(canonicalPath(path));
    const std::filesystem::path file = path.toStdString();
    const auto modified = QFileInfo(path).lastModified();
    // A .pt2 or a factory runs in the Python engine; TorchScript in the embedded one, or in the
    // Python engine where the embedded libtorch lacks one of its ops. The interpreter is the one
    // Record remembers.
    const auto python = chosenPython(QSettings()).toStdString();
    const engine::Engine chosen{engine::needsPython(file) ? python : std::string(), "cpu"};
    const auto id = m_jobs->run<engine::OpenedModel>(
        tr("Loading model %1").arg(QFileInfo(path).fileName()), QString(),
        [file, chosen, python](ProgressReporter &, const StopToken &stop) { return engine::openModel(chosen, file, python, stop); },
        this,
        [this, path, modified](engine::OpenedModel model) {
            const DocumentId opened = m_nextId++;
            ModelDocument document;
            document.id = opened;
            document.path = path;
            document.info = std::move(model.info);
            document.modified = modified;
            document.engine = model.engine;
            document.engineName = model.engineName;
            document.exampleInputs = model.exampleInputs;
            document.engineNote = model.note;
            document.batchNote = model.batchNote;
            document.python = model.python;
            m_models.emplace(opened, std::make_shared<const ModelDocument>(std::move(document)));
            Q_EMIT fileOpened(path);
            Q_EMIT modelOpened(opened);
        });
    m_modelJobs.insert(id, canonicalPath(path));
}

} // namespace pyrometer::ui
