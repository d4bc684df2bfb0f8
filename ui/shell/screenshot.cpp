#include "ui/shell/screenshot.h"

#include "ui/compare/comparepage.h"
#include "ui/jobs/jobtracker.h"
#include "ui/model/modelpage.h"
#include "ui/workspace/workspace.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/messagebanner.h"

#include <QApplication>
#include <QLineEdit>
#include <QPixmap>
#include <QPushButton>
#include <QTabWidget>
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

void whenIdle(MainWindow *window, std::function<void()> then)
{
    QTimer::singleShot(0, window, [window, then] {
        if (window->jobs()->isIdle()) {
            then();
            return;
        }
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = QObject::connect(window->jobs(), &JobTracker::becameIdle, window, [connection, window, then] {
            QObject::disconnect(*connection);
            whenIdle(window, then);
        });
    });
}

QString startPageRun(MainWindow *window, Page page, const QString &inputs)
{
    if (page != Page::Model && page != Page::Compare)
        return QObject::tr("only the Model and Compare pages run something");
    // Compare without a model compares the two traces it offers.
    if (auto *compare = qobject_cast<ComparePage *>(window->pageWidget(page));
        compare && page == Page::Compare && window->workspace()->models().empty() && window->workspace()->traces().size() >= 2) {
        if (!compare->diffTracesButton()->isEnabled())
            return QObject::tr("the page is busy with a run");
        window->showPage(page);
        compare->tabs()->setCurrentIndex(1);
        compare->diffTracesButton()->click();
        return {};
    }
    if (window->workspace()->models().empty())
        return QObject::tr("nothing to run: open a model, or two traces to compare");
    QLineEdit *inputsEdit = nullptr;
    QPushButton *run = nullptr;
    if (auto *model = qobject_cast<ModelPage *>(window->pageWidget(page)); model && page == Page::Model) {
        inputsEdit = model->inputsEdit();
        run = model->runButton();
    } else if (auto *compare = qobject_cast<ComparePage *>(window->pageWidget(page)); compare && page == Page::Compare) {
        compare->tabs()->setCurrentIndex(0); // the variants being run
        inputsEdit = compare->inputsEdit();
        run = compare->runVariantsButton();
    } else {
        return QObject::tr("the page is missing");
    }
    if (!run->isEnabled())
        return QObject::tr("the page is busy with a run");
    window->showPage(page);
    if (!inputs.isEmpty())
        inputsEdit->setText(inputs);
    run->click();
    return {};
}

void screenshotWhenIdle(MainWindow *window, Page page, const QString &path,
                        std::function<void(int exitCode, const QString &message)> done)
{
    whenIdle(window, [window, page, path, done] { grabNow(window, page, path, done); });
}

} // namespace pyrometer::ui
