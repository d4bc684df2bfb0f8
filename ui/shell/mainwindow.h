#pragma once

#include "core/trace/tracesource.h"
#include "ui/shell/pages.h"
#include "ui/workspace/document.h"

#include <QMainWindow>

#include <map>

class QAction;
class QDate;
class QListWidget;
class QMenu;
class QStackedWidget;

class QMessageBox;

namespace pyrometer::ui {

class BookmarkList;
class BookmarkMenu;
class JobStatusWidget;
class JobTracker;
class MessageBanner;
class RecordDialog;
class ReportExporter;
class SessionController;
class Workspace;
struct Preferences;

// The application window: a sidebar of pages, the File/View/Help menus, the status bar
// with background jobs, an error banner, and drag and drop of files and folders.
class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens each path as a trace file, log directory or model.
    void openPaths(const QStringList &paths);
    // Opens a distributed job (a folder of rank traces, or the rank trace files) and lands on
    // the Distributed page when it is summarised.
    void openJob(const QStringList &paths);
    // Opens the bundled demo trace and model.
    void openDemo();

    void showPage(Page page);
    Page currentPage() const;

    // File → Record program… (Ctrl+R): the Record dialog, made on first use. Each trace it
    // writes opens on the Overview; after a second record, the last two are compared on the
    // Compare page, before → after.
    RecordDialog *recordDialog();
    void showRecordDialog();
    // The box a quit shows while a record finishes (null when none): it says what is finishing
    // and offers to drop it.
    QMessageBox *finishingBox() const { return m_finishingBox; }
    QStringList recordedTraces() const { return m_recordedTraces; }
    QWidget *pageWidget(Page page) const;

    // When false (screenshots, tests), nothing modal is shown: a log directory opens its
    // first run's traces instead of asking.
    void setInteractive(bool interactive);
    // File → Close (Ctrl+W): closes the trace or model the page shown is about.
    void closeCurrent();
    QAction *closeAction() const { return m_closeAction; }

    JobTracker *jobs() const { return m_jobs; }
    Workspace *workspace() const { return m_workspace; }
    MessageBanner *banner() const { return m_banner; }
    JobStatusWidget *jobStatus() const { return m_jobStatus; }
    QMenu *recentMenu() const { return m_recentMenu; }
    SessionController *session() const { return m_session; }
    ReportExporter *reports() const { return m_reports; }
    BookmarkList *bookmarks() const { return m_bookmarks; }
    BookmarkMenu *bookmarkMenu() const { return m_bookmarkMenu; }
    QAction *wheelZoomsAction() const { return m_wheelZooms; }

    // Edit > Preferences: the dialog, then stores and applies what was chosen.
    void showPreferences();
    // Applies preferences to the application and the pages (theme, time unit, timeline
    // colours and wheel, the Model page's defaults); the caller stores them.
    void applyPreferences(const Preferences &preferences);
    // Autosaves the session and, when the previous run did not exit cleanly, offers to
    // restore its session in the banner. Only the real application calls it, not tests.
    void enableCrashRecovery();
    // Failures shown since the window opened: failed jobs and refused inputs.
    int failureCount() const { return m_failures; }

    // Where File > Export report proposes to write: beside the job's folder on the Distributed
    // page, else beside the first open trace (else the model), named after it and the date,
    // "<name>-report-<yyyy-MM-dd>.html"; in the home folder when that folder cannot be written
    // or nothing is open.
    QString defaultReportPath(const QDate &date) const;
    // Writes the report of what the page shown is about to file (.html or .md): the job of the
    // Distributed page, else every open trace and the model's last run. Returns the job's id,
    // 0 when refused (said in the banner).
    quint64 exportReportTo(const QString &file);

    // The About box's text: Pyrometer's, Qt's and libtorch's versions.
    static QString aboutText();

protected:
    void closeEvent(QCloseEvent *event) override;
    // A quit while a record runs: the record is cancelled and the window waits for its trace
    // (the finishing box says so, with a way to drop it), then closes. False when no record runs.
    bool holdCloseForRecord();
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createMenus();
    void createPages();
    void createSession();
    void chooseTrace();
    void chooseModel();
    void chooseJob(bool folder);
    // Where File → Open job… starts: the folder of the current job, else of the current trace.
    QString currentFolder() const;
    void connectDistributedPage();
    void showError(const QString &message);
    void rememberOpened(const QString &path);
    void rebuildRecentMenu();
    void chooseFromLogDirectory(const QString &path, const std::vector<trace::LogRun> &runs);
    void restoreWindowState();
    void saveSessionAs();
    void chooseSession();
    // Asks, when documents are open, whether the session replaces them or adds to them.
    void openSession(const QString &path);
    struct CloseTarget {
        DocumentId trace = kNoDocument;
        DocumentId model = kNoDocument;
        DocumentId job = kNoDocument;
    };
    CloseTarget closeTarget() const;
    void exportReport();
    void refocusAfterDialog();
    void focusPage();

    bool m_recoveryOffered = false; // the banner offers to restore a crashed run's session
    enum class Landing { None, Trace, Model, Job };
    Landing m_landing = Landing::None; // what the last openPaths asked for, until it arrives
    JobTracker *m_jobs;
    Workspace *m_workspace;
    MessageBanner *m_banner;
    JobStatusWidget *m_jobStatus;
    QListWidget *m_sidebar;
    QStackedWidget *m_stack;
    QMenu *m_recentMenu = nullptr;
    BookmarkList *m_bookmarks = nullptr;
    BookmarkMenu *m_bookmarkMenu = nullptr;
    SessionController *m_session = nullptr;
    ReportExporter *m_reports = nullptr;
    QAction *m_wheelZooms = nullptr;
    QAction *m_closeAction = nullptr;
    std::map<Page, QWidget *> m_pages;
    RecordDialog *m_recordDialog = nullptr;
    QMessageBox *m_finishingBox = nullptr;
    QStringList m_recordedTraces; // traces recorded from this window, oldest first
    bool m_interactive = true;
    int m_failures = 0;
};

} // namespace pyrometer::ui
