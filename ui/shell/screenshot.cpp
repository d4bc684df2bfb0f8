#include "ui/shell/screenshot.h"

#include "ui/jobs/jobtracker.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebanner.h"

#include <QApplication>
#include <QPixmap>
#include <QTimer>

namespace pyrometer::ui {

namespace {

void grabNow(MainWindow *window, Page page, const QString &path,
             const std::function<void(int, const QString &)> &done)
{
    window->showPage(page);
    // Let layouts and pending paints settle before grabbing.
    QApplication::processEvents();
    const QPixmap pixmap = window->grab();
    if (pixmap.isNull() || !pixmap.save(path, "PNG")) {
        done(1, QObject::tr("%1: cannot write the screenshot").arg(path));
        return;
    }
    if (window->failureCount() > 0) {
        done(1, QObject::tr("screenshot written to %1, but %2 input(s) failed: %3")
                    .arg(path)
                    .arg(window->failureCount())
                    .arg(window->banner()->messages().join(QStringLiteral("; "))));
        return;
    }
    done(0, QString());
}

} // namespace

void screenshotWhenIdle(MainWindow *window, Page page, const QString &path,
                        std::function<void(int exitCode, const QString &message)> done)
{
    // Queued, so that a finished job's results reach the pages first; a job that started
    // from another's results (a trace, then its timeline index) is waited for too.
    QTimer::singleShot(0, window, [window, page, path, done] {
        if (window->jobs()->isIdle()) {
            grabNow(window, page, path, done);
            return;
        }
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = QObject::connect(window->jobs(), &JobTracker::becameIdle, window, [connection, window, page, path, done] {
            QObject::disconnect(*connection);
            screenshotWhenIdle(window, page, path, done);
        });
    });
}

} // namespace pyrometer::ui
