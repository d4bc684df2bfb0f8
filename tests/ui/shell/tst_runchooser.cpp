// The dialog that opens traces from a folder: a TensorBoard log directory or a plain folder of
// traces, every trace listed with when it was recorded, the first run's traces checked.
#include "core/trace/tracesource.h"
#include "ui/shell/runchooserdialog.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

const QString kTraces = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces");

bool copy(const QString &from, const QString &to)
{
    QDir().mkpath(QFileInfo(to).absolutePath());
    return QFile::copy(from, to);
}

} // namespace

class TestRunChooser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plainFolderAndTensorBoardRuns()
    {
        QTemporaryDir dir;
        const QString root = dir.path();
        // A plain folder: names that are not TensorBoard's, one of them with a process id.
        QVERIFY(copy(kTraces + "/debian_legacy_linear.json", root + "/legacy.json"));
        QVERIFY(copy(kTraces + "/debian_legacy_linear.json.gz", root + "/legacy-zipped.json.gz"));
        QVERIFY(copy(kTraces + "/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", root + "/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
        QVERIFY(copy(kTraces + "/diff_base.json", root + "/before.json"));
        QVERIFY(copy(kTraces + "/diff_other.json", root + "/after.json"));
        QFile config(root + "/config.json");
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(R"({"lr": 0.1})");
        config.close();
        // A TensorBoard run below it, two spans.
        const QString tbRun = root + "/tb/resnet";
        QVERIFY(copy(kTraces + "/diff_base.json", tbRun + "/worker0.1623143089861.pt.trace.json"));
        QVERIFY(copy(kTraces + "/diff_other.json", tbRun + "/worker0.1623143566756.pt.trace.json"));

        const auto runs = trace::discoverRuns(root.toStdString());
        RunChooserDialog dialog(root, runs);
        auto *tree = dialog.tree();
        QCOMPARE(tree->topLevelItemCount(), 2);
        QStringList workers;
        for (int r = 0; r < tree->topLevelItemCount(); ++r)
            for (int f = 0; f < tree->topLevelItem(r)->childCount(); ++f)
                workers << tree->topLevelItem(r)->child(f)->text(0);
        workers.sort();
        QCOMPARE(workers, QStringList({"after", "before", "legacy", "legacy-zipped", "rank-34.Jul_15_10_52_41.1074",
                                       "worker0 \u00b7 1623143089861", "worker0 \u00b7 1623143566756"}));
        // The folder is named as itself, not "."; its traces are recorded when their files were.
        const auto *plain = tree->findItems(QFileInfo(root).fileName(), Qt::MatchExactly).value(0);
        QVERIFY(plain);
        QCOMPARE(plain->childCount(), 5);
        const auto *resnet = tree->findItems(QStringLiteral("tb/resnet"), Qt::MatchExactly).value(0);
        QVERIFY(resnet);
        QCOMPARE(resnet->childCount(), 2);
        // A TensorBoard span is the time in its name (milliseconds since 1970).
        const QDateTime expected = QDateTime::fromMSecsSinceEpoch(1623143089861);
        QCOMPARE(resnet->child(0)->text(1), QLocale().toString(expected, QStringLiteral("yyyy-MM-dd HH:mm:ss")));
        QVERIFY(resnet->child(0)->toolTip(1).contains(QStringLiteral("1623143089861")));
        // Every trace of the first run is checked, none of the others.
        const auto *first = tree->topLevelItem(0);
        QStringList expectedChecked;
        for (int f = 0; f < first->childCount(); ++f)
            expectedChecked << first->child(f)->data(0, Qt::UserRole + 1).toString();
        QCOMPARE(dialog.checkedFiles(), expectedChecked);
        QVERIFY(!expectedChecked.isEmpty());

        if (const auto shots = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR"); !shots.isEmpty()) {
            dialog.show();
            dialog.grab().save(QDir(shots).filePath(QStringLiteral("pyrometer-run-chooser.png")));
        }
    }

    // Two spans of one worker read apart: each named by its span, its time to the millisecond
    // where two fall in one second, its exact size in the tooltip.
    void spansOfOneWorkerReadApart()
    {
        const auto runs = trace::discoverRuns((kTraces + "/tb_logdir").toStdString());
        RunChooserDialog dialog(kTraces + "/tb_logdir", runs);
        const auto *run = dialog.tree()->findItems(QStringLiteral("resnet50_num_workers_0"), Qt::MatchExactly).value(0);
        QVERIFY(run);
        QCOMPARE(run->childCount(), 2);
        const auto *a = run->child(0);
        const auto *b = run->child(1);
        QVERIFY2(a->text(0) != b->text(0), qPrintable(a->text(0)));
        QCOMPARE(a->text(0), QStringLiteral("worker0 \u00b7 1623143089861"));
        QCOMPARE(b->text(0), QStringLiteral("worker0 \u00b7 1623143566756"));
        QVERIFY(a->text(1) != b->text(1));
        QCOMPARE(a->toolTip(2), QObject::tr("%1 bytes").arg(QLocale().toString(qint64(1159569))));
        QCOMPARE(b->toolTip(2), QObject::tr("%1 bytes").arg(QLocale().toString(qint64(1160275))));

        // Spans in one second: the times show their milliseconds.
        QTemporaryDir dir;
        QVERIFY(copy(kTraces + "/diff_base.json", dir.path() + "/run/worker0.1623143089861.pt.trace.json"));
        QVERIFY(copy(kTraces + "/diff_other.json", dir.path() + "/run/worker0.1623143089999.pt.trace.json"));
        RunChooserDialog close(dir.path(), trace::discoverRuns(dir.path().toStdString()));
        const auto *twin = close.tree()->topLevelItem(0);
        QVERIFY(twin);
        QCOMPARE(twin->childCount(), 2);
        QVERIFY2(twin->child(0)->text(1).endsWith(QStringLiteral(".861")), qPrintable(twin->child(0)->text(1)));
        QVERIFY2(twin->child(1)->text(1).endsWith(QStringLiteral(".999")), qPrintable(twin->child(1)->text(1)));

        if (const auto shots = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR"); !shots.isEmpty()) {
            dialog.show();
            dialog.grab().save(QDir(shots).filePath(QStringLiteral("pyrometer-run-chooser-spans.png")));
        }
    }
};

QTEST_MAIN(TestRunChooser)
#include "tst_runchooser.moc"
