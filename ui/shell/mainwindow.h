#pragma once

#include "core/trace/tracesource.h"
#include "ui/shell/pages.h"

#include <QMainWindow>

#include <map>

class QListWidget;
class QMenu;
class QStackedWidget;

namespace pyrometer::ui {

class JobStatusWidget;
class JobTracker;
class MessageBanner;
class Workspace;

// The application window: a sidebar of pages, the File/View/Help menus, the status bar
// with background jobs, an error banner, and drag and drop of files and folders.
class MainWindow final : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens each path as a trace file, log directory or model.
    void openPaths(const QStringList &paths);
    // Opens the bundled demo trace and model.
    void openDemo();

    void showPage(Page page);
    Page currentPage() const;
    QWidget *pageWidget(Page page) const;

    // When false (screenshots, tests), nothing modal is shown: a log directory opens its
    // first trace instead of asking.
    void setInteractive(bool interactive) { m_interactive = interactive; }

    JobTracker *jobs() const { return m_jobs; }
    Workspace *workspace() const { return m_workspace; }
    MessageBanner *banner() const { return m_banner; }
    JobStatusWidget *jobStatus() const { return m_jobStatus; }
    QMenu *recentMenu() const { return m_recentMenu; }
    // Failures shown since the window opened: failed jobs and refused inputs.
    int failureCount() const { return m_failures; }

    // The About box's text: Pyrometer's, Qt's and libtorch's versions.
    static QString aboutText();

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createMenus();
    void createPages();
    void chooseTrace();
    void chooseModel();
    void showError(const QString &message);
    void rememberOpened(const QString &path);
    void rebuildRecentMenu();
    void chooseFromLogDirectory(const QString &path, const std::vector<trace::LogRun> &runs);
    void restoreWindowState();

    JobTracker *m_jobs;
    Workspace *m_workspace;
    MessageBanner *m_banner;
    JobStatusWidget *m_jobStatus;
    QListWidget *m_sidebar;
    QStackedWidget *m_stack;
    QMenu *m_recentMenu = nullptr;
    std::map<Page, QWidget *> m_pages;
    bool m_interactive = true;
    int m_failures = 0;
};

} // namespace pyrometer::ui
