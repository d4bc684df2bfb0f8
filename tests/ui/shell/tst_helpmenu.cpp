// The Help menu: F1 says what the page shown is for, the keys' help lists every shortcut of the
// window and is the README's table, and the tour's links go to the pages.
#include "ui/shell/helpmenu.h"
#include "ui/shell/mainwindow.h"

#include "../maybegrab.h"

#include <QAction>
#include <QFile>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTest>
#include <QTextBrowser>

using namespace pyrometer::ui;

namespace {

QAction *actionWithShortcut(QWidget &window, const QKeySequence &keys)
{
    for (auto *action : window.findChildren<QAction *>())
        if (action->shortcut() == keys)
            return action;
    return nullptr;
}

// The README's "Keyboard and mouse" table, a row per line: "where | keys | does".
QStringList readmeKeyRows()
{
    QFile readme(QStringLiteral(PYROMETER_SOURCE_DIR "/README.md"));
    if (!readme.open(QIODevice::ReadOnly))
        return {};
    const QString text = QString::fromUtf8(readme.readAll());
    const auto start = text.indexOf(QStringLiteral("## Keyboard and mouse"));
    const auto end = text.indexOf(QStringLiteral("\n## "), start + 1);
    QStringList rows;
    for (const auto &line : text.mid(start, end - start).split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1String("| ")) || line.startsWith(QLatin1String("| where")))
            continue;
        QStringList cells;
        for (const auto &cell : line.split(QLatin1Char('|'), Qt::SkipEmptyParts))
            cells.append(cell.trimmed());
        rows.append(cells.join(QStringLiteral(" | ")));
    }
    return rows;
}

// "Ctrl+1 … Ctrl+9, Ctrl+0" -> Ctrl+1 to Ctrl+9 and Ctrl+0; "W / S" -> W, S.
QStringList keysOf(const QString &text)
{
    QStringList keys;
    for (const auto &part : text.split(QRegularExpression(QStringLiteral(" / |, "))))
        keys.append(part.trimmed());
    QStringList expanded;
    const QRegularExpression range(QStringLiteral("^(.*\\+)(\\d) … \\1(\\d)$"));
    for (const auto &key : keys) {
        const auto match = range.match(key);
        if (!match.hasMatch()) {
            expanded.append(key);
            continue;
        }
        for (int digit = match.captured(2).toInt(); digit <= match.captured(3).toInt(); ++digit)
            expanded.append(match.captured(1) + QString::number(digit));
    }
    return expanded;
}

} // namespace

class TestHelpMenu : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyShortcutOfTheWindowIsInTheKeysHelp()
    {
        MainWindow window;
        window.setInteractive(false);
        // The window's own under "window"; a view's (a table's Copy) under any.
        QStringList windowKeys;
        QStringList anyKeys;
        for (const auto &row : keyHelp()) {
            const auto keys = keysOf(QString::fromUtf8(row.keys));
            anyKeys += keys;
            if (QString::fromUtf8(row.where) == QStringLiteral("window"))
                windowKeys += keys;
        }
        int windowShortcuts = 0;
        for (auto *action : window.findChildren<QAction *>()) {
            if (action->shortcut().isEmpty())
                continue;
            const bool ofTheWindow = action->shortcutContext() == Qt::WindowShortcut ||
                                     action->shortcutContext() == Qt::ApplicationShortcut;
            windowShortcuts += ofTheWindow;
            const QString keys = action->shortcut().toString(QKeySequence::PortableText);
            QVERIFY2((ofTheWindow ? windowKeys : anyKeys).contains(keys),
                     qPrintable(keys + " (" + action->text() + ") is not in the keys' help"));
        }
        QVERIFY2(windowShortcuts >= 20, qPrintable(QString::number(windowShortcuts))); // open, close, pages, help, ...
    }

    void readmeTableIsTheKeysHelp()
    {
        QStringList help;
        for (const auto &row : keyHelp())
            help.append(QStringLiteral("%1 | %2 | %3").arg(QString::fromUtf8(row.where), QString::fromUtf8(row.keys),
                                                           QString::fromUtf8(row.does)));
        QCOMPARE(readmeKeyRows(), help);
    }

    void f1SaysWhatThePageIsFor()
    {
        MainWindow window;
        window.setInteractive(false);
        window.show();
        auto *f1 = actionWithShortcut(window, QKeySequence(Qt::Key_F1));
        QVERIFY(f1);
        for (const auto page : kAllPages) {
            window.showPage(page);
            f1->trigger();
            auto *box = window.findChild<QMessageBox *>(QStringLiteral("pageHelp"));
            QVERIFY(box);
            QCOMPARE(box->windowTitle(), pageTitle(page));
            QCOMPARE(box->text(), pageHelp(page));
            QVERIFY2(box->text().size() > 100, qPrintable(box->text()));
            if (page == Page::Roofline)
                maybeGrab(*box, QStringLiteral("help-page.png"));
            box->close();
            QTRY_VERIFY(!window.findChild<QMessageBox *>(QStringLiteral("pageHelp")));
        }
    }

    void tourLinksShowThePages()
    {
        MainWindow window;
        window.setInteractive(false);
        window.show();
        window.showPage(Page::Overview);
        QAction *tour = nullptr;
        for (auto *action : window.findChildren<QAction *>())
            if (action->text().contains(QStringLiteral("tour")))
                tour = action;
        QVERIFY(tour);
        tour->trigger();
        auto *dialog = window.findChild<QDialog *>(QStringLiteral("tour"));
        QVERIFY(dialog);
        auto *text = dialog->findChild<QTextBrowser *>();
        QVERIFY(text);
        for (const auto page : kAllPages)
            QVERIFY2(text->toPlainText().contains(pageTitle(page) + ": " + pageHelp(page).left(40)),
                     qPrintable(pageTitle(page)));
        // Built in its tree: the README is found, and linked.
        QVERIFY(!readmePath().isEmpty());
        QVERIFY(text->toHtml().contains(QStringLiteral("README.md")));
        maybeGrab(*dialog, QStringLiteral("help-tour.png"));
        Q_EMIT text->anchorClicked(QUrl(QStringLiteral("page:roofline")));
        QCOMPARE(window.currentPage(), Page::Roofline);
        Q_EMIT text->anchorClicked(QUrl(QStringLiteral("page:gpu")));
        QCOMPARE(window.currentPage(), Page::Gpu);
    }

    void keysHelpOpensOnCtrlSlash()
    {
        MainWindow window;
        window.setInteractive(false);
        window.show();
        auto *keys = actionWithShortcut(window, QKeySequence(Qt::CTRL | Qt::Key_Slash));
        QVERIFY(keys);
        keys->trigger();
        auto *dialog = window.findChild<QDialog *>(QStringLiteral("keyHelp"));
        QVERIFY(dialog);
        const QString text = dialog->findChild<QTextBrowser *>()->toPlainText();
        for (const auto &row : keyHelp())
            QVERIFY2(text.contains(QString::fromUtf8(row.does)), row.does);
        maybeGrab(*dialog, QStringLiteral("help-keys.png"));
    }
};

QTEST_MAIN(TestHelpMenu)
#include "tst_helpmenu.moc"
