#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include "core/session/sessionfile.h"
#include "ui/workspace/document.h"

#include <functional>
#include <map>

class QTimer;

namespace pyrometer::ui {

class BookmarkList;
class JobTracker;
class ModelPage;
class Workspace;
namespace timeline {
class TimelinePage;
}

// Captures the window's state as a session::SessionState and restores one: the open traces and
// models, the timeline's trace and selected ranges, bookmarks, the model's last run, the page
// shown, and whatever later pages register (the comparison setup, sweeps). Also keeps the
// autosave and the clean-exit marker that crash recovery reads.
class SessionController final : public QObject {
    Q_OBJECT
public:
    struct Parts {
        Workspace *workspace = nullptr;
        JobTracker *jobs = nullptr;
        BookmarkList *bookmarks = nullptr;
        timeline::TimelinePage *timeline = nullptr;
        ModelPage *model = nullptr;
        std::function<QString()> currentPage;          // the page's name ("timeline")
        std::function<void(const QString &)> showPage; // by name
    };
    SessionController(Parts parts, QObject *parent = nullptr);
    ~SessionController() override;

    // A page's state in the session, under key (its page name). save runs on the GUI thread and
    // must be quick; restore gets what save wrote (or null when the session has none).
    using SaveState = std::function<nlohmann::json()>;
    using RestoreState = std::function<void(const nlohmann::json &)>;
    void addPageState(const QString &key, SaveState save, RestoreState restore);
    // The Compare page's setup, kept in the session's "comparison" field.
    void setComparisonState(SaveState save, RestoreState restore);

    session::SessionState capture() const;
    // Add: the session's files join what is open, its bookmarks join the others. Replace:
    // every open document is closed first and the bookmarks are the session's.
    enum class OpenMode { Add, Replace };
    // Opens what state names and applies the rest as the documents arrive. Files that no
    // longer exist are skipped and reported through filesMissing.
    void restore(const session::SessionState &state, OpenMode mode = OpenMode::Add);

    // Save and open .pyrometer files; errors (naming the file) go to failed(). A session that
    // cannot be read changes nothing, whatever the mode.
    bool save(const QString &path);
    bool open(const QString &path, OpenMode mode = OpenMode::Add);

    // Starts autosaving into directory (every minute, and shortly after each change) and
    // marks the run as not yet cleanly exited. Returns the previous run's autosave when that run
    // did not exit cleanly (moved aside, so this run's autosave does not overwrite it), else "".
    QString startAutosave(const QString &directory);
    // Writes the autosave now, off the GUI thread.
    void autosaveNow();
    // A clean exit: removes the marker and the autosave.
    void markCleanExit();
    QString autosavePath() const;
    QString markerPath() const;
    // Waits for pending autosave writes (tests, shutdown).
    void waitForAutosave();

    // The summary line of a run, as the Model page shows a restored one.
    static QString runSummaryText(const session::RunSummary &run);

Q_SIGNALS:
    void filesMissing(const QStringList &files);
    void failed(const QString &message);
    void saved(const QString &path);

private:
    void scheduleAutosave();
    void applyPendingRange();
    bool timelineShows(DocumentId id) const;
    void traceOpened(DocumentId opened);
    void modelOpened(DocumentId id);
    QString traceName(DocumentId id) const;

    Parts m_parts;
    std::map<QString, std::pair<SaveState, RestoreState>> m_pageStates;
    std::pair<SaveState, RestoreState> m_comparison;
    // The range selected last in each trace's timeline, by trace path.
    std::map<QString, std::pair<double, double>> m_ranges;
    // What a restored session still waits for: ranges of traces not indexed yet, the trace to
    // show, and runs of models not opened yet.
    std::map<QString, std::pair<double, double>> m_pendingRanges;
    QString m_pendingCurrentTrace;
    QSet<QString> m_pendingTraces; // the session's traces not opened yet
    std::vector<session::RunSummary> m_restoredRuns;

    QString m_autosaveDirectory;
    QTimer *m_autosaveTimer;
    QTimer *m_changeTimer;
    QThreadPool m_writer; // one thread: autosaves land in order
};

} // namespace pyrometer::ui
