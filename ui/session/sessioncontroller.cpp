#include "ui/session/sessioncontroller.h"

#include "core/model/inputspec.h"
#include "ui/jobs/jobtracker.h"
#include "ui/model/modelpage.h"
#include "ui/model/profileresultsview.h"
#include "ui/session/bookmarklist.h"
#include "ui/shell/displaytext.h"
#include "ui/timeline/timelineindex.h"
#include "ui/timeline/timelinepage.h"
#include "ui/workspace/workspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <cerrno>

#include <signal.h>
#include <unistd.h>

namespace pyrometer::ui {

namespace {

constexpr int kAutosaveIntervalMs = 60'000;
constexpr int kAutosaveAfterChangeMs = 2'000;
const QString kMarkerPrefix = QStringLiteral("running-");
const QString kAutosavePattern = QStringLiteral("autosave-%1.pyrometer");
const QString kRecoveredName = QStringLiteral("recovered.pyrometer");

bool processAlive(qint64 pid)
{
    return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
}

session::RunSummary summarize(const ProfileRun &run)
{
    const auto &l = run.latency;
    const auto &p = run.profile;
    session::RunSummary summary;
    summary.model = l.path.string();
    summary.inputs = model::formatInputSpecs(l.inputs);
    summary.mode = l.mode == model::RunMode::Train ? "train" : "inference";
    summary.threads = l.threads;
    summary.warmup = l.warmup;
    summary.iterations = l.iterations;
    summary.coldMs = l.coldMs;
    summary.meanMs = l.warm.mean;
    summary.stdMs = l.warm.std;
    summary.p50Ms = l.warm.p50;
    summary.p90Ms = l.warm.p90;
    summary.p99Ms = l.warm.p99;
    summary.throughputPerSecond = l.throughputPerSecond;
    summary.forwardMs = p.forwardMs;
    summary.peakMemoryBytes = p.peakMemoryBytes;
    summary.totalFlops = p.totalFlops;
    summary.tracePath = run.tracePath.string();
    return summary;
}

} // namespace

SessionController::SessionController(Parts parts, QObject *parent)
    : QObject(parent), m_parts(std::move(parts)), m_autosaveTimer(new QTimer(this)), m_changeTimer(new QTimer(this))
{
    m_writer.setMaxThreadCount(1);
    m_changeTimer->setSingleShot(true);
    m_changeTimer->setInterval(kAutosaveAfterChangeMs);
    m_autosaveTimer->setInterval(kAutosaveIntervalMs);
    connect(m_autosaveTimer, &QTimer::timeout, this, &SessionController::autosaveNow);
    connect(m_changeTimer, &QTimer::timeout, this, &SessionController::autosaveNow);

    connect(m_parts.workspace, &Workspace::traceOpened, this, &SessionController::traceOpened);
    connect(m_parts.workspace, &Workspace::modelOpened, this, &SessionController::modelOpened);
    connect(m_parts.bookmarks, &BookmarkList::changed, this, &SessionController::scheduleAutosave);
    connect(m_parts.jobs, &JobTracker::finished, this, &SessionController::scheduleAutosave);
    auto *timeline = m_parts.timeline;
    connect(timeline->view(), &timeline::TimelineView::rangeSelected, this, [this](double start, double end) {
        const QString trace = traceName(m_parts.timeline->currentTrace());
        if (!trace.isEmpty())
            m_ranges[trace] = {start, end};
        scheduleAutosave();
    });
    connect(timeline, &timeline::TimelinePage::traceShown, this, &SessionController::applyPendingRange);
}

void SessionController::applyPendingRange()
{
    const QString trace = traceName(m_parts.timeline->currentTrace());
    const auto pending = m_pendingRanges.find(trace);
    if (pending == m_pendingRanges.end())
        return;
    const auto range = pending->second;
    // While the session's traces are still loading, the timeline may switch to a newer one and
    // back, and showing a trace again clears its range: keep the range until the restore has
    // settled, to apply it again then.
    if (m_pendingTraces.isEmpty() && m_pendingCurrentTrace.isEmpty())
        m_pendingRanges.erase(pending);
    m_parts.timeline->view()->selectRange(range.first, range.second);
}

bool SessionController::timelineShows(DocumentId id) const
{
    const auto *index = m_parts.timeline->view()->index();
    const auto document = m_parts.workspace->trace(id);
    return index && document && m_parts.timeline->currentTrace() == id && index->trace.get() == document->trace.get();
}

SessionController::~SessionController()
{
    m_writer.waitForDone();
}

void SessionController::addPageState(const QString &key, SaveState save, RestoreState restore)
{
    m_pageStates[key] = {std::move(save), std::move(restore)};
}

void SessionController::setComparisonState(SaveState save, RestoreState restore)
{
    m_comparison = {std::move(save), std::move(restore)};
}

QString SessionController::traceName(DocumentId id) const
{
    const auto document = m_parts.workspace->trace(id);
    return document ? document->path : QString();
}

session::SessionState SessionController::capture() const
{
    session::SessionState state;
    // A job's combined trace is no file of its own: the job reopens it.
    for (const auto &[id, trace] : m_parts.workspace->traces()) {
        if (trace->job == kNoDocument)
            state.traces.push_back(trace->path.toStdString());
    }
    for (const auto &[id, model] : m_parts.workspace->models())
        state.models.push_back(model->path.toStdString());
    for (const auto id : m_parts.workspace->jobDocuments()) {
        session::SessionJob job;
        for (const auto &file : m_parts.workspace->jobDocument(id)->files)
            job.files.push_back(file.toStdString());
        state.jobs.push_back(std::move(job));
    }
    if (const auto current = m_parts.workspace->trace(m_parts.timeline->currentTrace()); current && current->job == kNoDocument)
        state.currentTrace = current->path.toStdString();
    if (m_parts.currentPage)
        state.currentPage = m_parts.currentPage().toStdString();
    for (const auto &[trace, range] : m_ranges)
        state.ranges.push_back({trace.toStdString(), std::int64_t(range.first), std::int64_t(range.second)});
    // Ranges of a restored session whose traces were not shown again are kept as they were.
    for (const auto &[trace, range] : m_pendingRanges) {
        if (!m_ranges.count(trace))
            state.ranges.push_back({trace.toStdString(), std::int64_t(range.first), std::int64_t(range.second)});
    }
    state.bookmarks = m_parts.bookmarks->bookmarks();
    if (const auto run = m_parts.model->results()->sharedRun())
        state.runs.push_back(summarize(*run));
    for (const auto &run : m_restoredRuns) {
        const bool replaced = std::any_of(state.runs.begin(), state.runs.end(),
                                          [&](const session::RunSummary &r) { return r.model == run.model; });
        if (!replaced)
            state.runs.push_back(run);
    }
    if (m_comparison.first)
        state.comparison = m_comparison.first();
    for (const auto &[key, handlers] : m_pageStates)
        state.pages[key.toStdString()] = handlers.first();
    return state;
}

void SessionController::restore(const session::SessionState &state, OpenMode mode)
{
    if (mode == OpenMode::Replace) {
        m_parts.workspace->closeAll();
        m_parts.bookmarks->setBookmarks({});
        m_ranges.clear();
        m_pendingRanges.clear();
    }
    const auto missing = session::missingFiles(state);
    const auto isMissing = [&](const std::string &file) {
        return std::find(missing.begin(), missing.end(), file) != missing.end();
    };
    // The id of the open document read from file, or kNoDocument.
    const auto openId = [](const auto &documents, const std::string &file) {
        for (const auto &[id, document] : documents)
            if (document->path == qs(file))
                return id;
        return kNoDocument;
    };

    for (const auto &range : state.ranges)
        m_pendingRanges[qs(range.trace)] = {double(range.startNs), double(range.endNs)};
    m_pendingCurrentTrace = qs(state.currentTrace);
    m_pendingTraces.clear();
    for (const auto &trace : state.traces) {
        if (!isMissing(trace))
            m_pendingTraces.insert(qs(trace));
    }
    m_restoredRuns = state.runs;
    auto bookmarks = m_parts.bookmarks->bookmarks();
    for (const auto &bookmark : state.bookmarks) {
        if (std::find(bookmarks.begin(), bookmarks.end(), bookmark) == bookmarks.end())
            bookmarks.push_back(bookmark);
    }
    m_parts.bookmarks->setBookmarks(std::move(bookmarks));

    for (const auto &trace : state.traces) {
        if (isMissing(trace))
            continue;
        if (const auto open = openId(m_parts.workspace->traces(), trace); open != kNoDocument) {
            // Already open: its range and place apply now rather than when it arrives.
            traceOpened(open);
            continue;
        }
        m_parts.workspace->openTrace(qs(trace));
    }
    for (const auto &model : state.models) {
        if (!isMissing(model) && openId(m_parts.workspace->models(), model) == kNoDocument)
            m_parts.workspace->openModel(qs(model));
    }
    for (const auto &job : state.jobs) {
        // A job missing a rank would be another job: its files are named as missing instead.
        if (std::any_of(job.files.begin(), job.files.end(), isMissing))
            continue;
        QStringList files;
        for (const auto &file : job.files)
            files.append(qs(file));
        const auto ids = m_parts.workspace->jobDocuments();
        const bool open = std::any_of(ids.begin(), ids.end(), [&](DocumentId id) { return m_parts.workspace->jobDocument(id)->files == files; });
        if (!open)
            m_parts.workspace->openJob(files);
    }
    if (m_comparison.second)
        m_comparison.second(state.comparison);
    for (const auto &[key, handlers] : m_pageStates) {
        const auto it = state.pages.find(key.toStdString());
        handlers.second(it != state.pages.end() ? *it : nlohmann::json());
    }
    if (timelineShows(m_parts.timeline->currentTrace()))
        applyPendingRange();
    if (!state.currentPage.empty() && m_parts.showPage)
        m_parts.showPage(qs(state.currentPage));
    if (!missing.empty()) {
        QStringList files;
        for (const auto &file : missing)
            files.append(qs(file));
        Q_EMIT filesMissing(files);
    }
}

void SessionController::traceOpened(DocumentId opened)
{
    // A job's combined trace comes with its job, asked for or not.
    if (const auto document = m_parts.workspace->trace(opened); document && document->job != kNoDocument)
        return;
    // A trace the user opened, not one the session asked for: the user's choice wins from now on.
    if (!m_pendingTraces.remove(traceName(opened))) {
        m_pendingTraces.clear();
        m_pendingCurrentTrace.clear();
        return;
    }
    if (m_pendingCurrentTrace.isEmpty())
        return;
    // Traces load in parallel and the timeline shows the newest: come back to the saved one.
    for (const auto &[id, document] : m_parts.workspace->traces()) {
        if (document->path != m_pendingCurrentTrace)
            continue;
        const bool shown = m_parts.timeline->currentTrace() == id;
        m_parts.workspace->selectTrace(id); // every page that shows one trace
        if (shown && id == opened && timelineShows(opened)) // shown already: apply its range now
            applyPendingRange();
        break;
    }
    if (m_pendingTraces.isEmpty()) {
        m_pendingCurrentTrace.clear();
        // Settled: the range of the trace on screen is applied for the last time now, or when
        // the timeline has indexed it again.
        if (timelineShows(m_parts.timeline->currentTrace()))
            applyPendingRange();
    }
}

void SessionController::modelOpened(DocumentId id)
{
    const QString path = m_parts.workspace->model(id)->path;
    for (const auto &run : m_restoredRuns) {
        if (qs(run.model) == path)
            m_parts.model->showPreviousRun(runSummaryText(run));
    }
}

QString SessionController::runSummaryText(const session::RunSummary &run)
{
    return tr("Last run, saved with the session: inputs %1, %2; cold %3 ms, warm mean %4 ms (p50 %5, p90 %6, p99 %7 ms) "
              "over %8 runs; %9 items/s.")
        .arg(qs(run.inputs), qs(run.mode), QString::number(run.coldMs, 'f', 3), QString::number(run.meanMs, 'f', 3),
             QString::number(run.p50Ms, 'f', 3), QString::number(run.p90Ms, 'f', 3), QString::number(run.p99Ms, 'f', 3),
             QString::number(run.iterations), QString::number(run.throughputPerSecond, 'f', 1));
}

bool SessionController::save(const QString &path)
{
    const auto written = session::writeSession(path.toStdString(), capture());
    if (!written.ok()) {
        Q_EMIT failed(qs(written.error().message));
        return false;
    }
    Q_EMIT saved(path);
    return true;
}

bool SessionController::open(const QString &path, OpenMode mode)
{
    const auto state = session::readSession(path.toStdString());
    if (!state.ok()) {
        Q_EMIT failed(qs(state.error().message));
        return false;
    }
    restore(state.value(), mode);
    return true;
}

QString SessionController::autosavePath() const
{
    return m_autosaveDirectory.isEmpty() ? QString()
                                         : QDir(m_autosaveDirectory).filePath(kAutosavePattern.arg(QCoreApplication::applicationPid()));
}

QString SessionController::markerPath() const
{
    return m_autosaveDirectory.isEmpty()
               ? QString()
               : QDir(m_autosaveDirectory).filePath(kMarkerPrefix + QString::number(QCoreApplication::applicationPid()));
}

QString SessionController::startAutosave(const QString &directory)
{
    QDir dir(directory);
    dir.mkpath(QStringLiteral("."));
    m_autosaveDirectory = dir.absolutePath();

    // Each running window has its own marker and autosave; a marker whose process is gone
    // belongs to a run that crashed. Its autosave is moved aside for the user to restore.
    QString recovered;
    for (const auto &marker : dir.entryList({kMarkerPrefix + QLatin1Char('*')}, QDir::Files)) {
        const qint64 pid = marker.mid(kMarkerPrefix.size()).toLongLong();
        if (processAlive(pid))
            continue;
        const QString autosave = dir.filePath(kAutosavePattern.arg(pid));
        const auto state = session::readSession(autosave.toStdString());
        if (state.ok() && !state.value().isEmpty()) {
            const QString target = dir.filePath(kRecoveredName);
            QFile::remove(target);
            if (QFile::rename(autosave, target))
                recovered = target;
        }
        QFile::remove(autosave);
        QFile::remove(dir.filePath(marker));
    }

    QFile marker(markerPath());
    if (marker.open(QIODevice::WriteOnly))
        marker.write(QByteArray::number(QCoreApplication::applicationPid()));
    m_autosaveTimer->start();
    return recovered;
}

void SessionController::scheduleAutosave()
{
    if (!m_autosaveDirectory.isEmpty())
        m_changeTimer->start();
}

void SessionController::autosaveNow()
{
    if (m_autosaveDirectory.isEmpty())
        return;
    m_writer.start([state = capture(), path = autosavePath().toStdString()] {
        const auto written = session::writeSession(path, state);
        if (!written.ok())
            qWarning("autosave: %s", written.error().message.c_str());
    });
}

void SessionController::waitForAutosave()
{
    m_writer.waitForDone();
}

void SessionController::markCleanExit()
{
    if (m_autosaveDirectory.isEmpty())
        return;
    m_autosaveTimer->stop();
    m_changeTimer->stop();
    m_writer.waitForDone();
    QFile::remove(autosavePath());
    QFile::remove(markerPath());
    m_autosaveDirectory.clear();
}

} // namespace pyrometer::ui
