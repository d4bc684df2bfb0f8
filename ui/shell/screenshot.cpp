#include "ui/shell/screenshot.h"

#include "ui/jobs/jobtracker.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebanner.h"

#include <QApplication>
#include <QPixmap>
#include <QPointer>
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
    QPointer<MainWindow> guard(window);
    auto grab = [guard, page, path, done] {
        if (guard)
            grabNow(guard, page, path, done);
    };
    if (window->jobs()->isIdle()) {
        QTimer::singleShot(0, window, grab);
        return;
    }
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(window->jobs(), &JobTracker::becameIdle, window, [connection, grab] {
        QObject::disconnect(*connection);
        // Queued, so that the finished job's results reach the pages first.
        QTimer::singleShot(0, grab);
    });
}

} // namespace pyrometer::ui
