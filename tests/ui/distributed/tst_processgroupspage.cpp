// The Distributed page of a job whose collectives run in process groups (the hand-made 4-rank job
// of tests/fixtures/traces/groups, written by scripts/make-group-job.py): a row per group, each
// named with its members, and bus bandwidth with each group's own size.
// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QAbstractItemModel>
#include <QApplication>
#include <QTabWidget>
#include <QTest>
#include "../maybegrab.h"
#include "ui/distributed/distributedpage.h"
#include "ui/distributed/jobtables.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/mainwindow.h"
#include "ui/workspace/workspace.h"

#include <cmath>

using namespace pyrometer::ui;
using pyrometer::ui::distributed::DistributedPage;

namespace {

const QString kGroups = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/groups");

int columnNamed(const QAbstractItemModel &model, const QString &name)
{
    for (int c = 0; c < model.columnCount(); ++c)
        if (model.headerData(c, Qt::Horizontal).toString() == name)
            return c;
    return -1;
}

} // namespace

class TestProcessGroupsPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void collectivesAreShownPerGroup()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        window.openJob({kGroups});
        QTRY_VERIFY_WITH_TIMEOUT(window.jobs()->activeCount() == 0, 60000);
        QCOMPARE(window.failureCount(), 0);
        QCOMPARE(window.workspace()->jobDocuments().size(), std::size_t(1));
        window.showPage(Page::Distributed);
        auto *page = window.findChild<DistributedPage *>();
        QVERIFY(page);
        page->tables()->setCurrentIndex(1);
        QApplication::processEvents();
        maybeGrab(window, QStringLiteral("distributed-process-groups.png"));

        const auto &model = *page->collectivesModel();
        const int group = columnNamed(model, "Process group"), members = columnNamed(model, "Members"),
                  size = columnNamed(model, "Group size"), calls = columnNamed(model, "Calls"),
                  busbw = columnNamed(model, "busbw GB/s");
        QVERIFY(group >= 0 && members >= 0 && size >= 0 && calls >= 0 && busbw >= 0);
        // Five groups, each its own row over all ranks (the job has no rank filter set).
        QCOMPARE(model.rowCount(), 5);
        // Expected, by hand: 1 MiB (1,048,576 bytes) per call, two steps, every member's call
        // counted. tp (1) = ranks 0 and 1: (10 + 8) ms a step, 4 calls in 36 ms, algbw
        // 1,048,576 x 4 / 0.036 s = 0.1165 GB/s, x 2(2-1)/2 = 1 -> busbw 0.12. The world group:
        // (10 + 8 + 9 + 5) ms a step, 8 calls in 64 ms: algbw 0.131 GB/s, x 2(4-1)/4 = 1.5 -> 0.20.
        struct Expected {
            const char *label;
            const char *members;
            int size;
            int calls;
            double busbw;
        };
        const Expected expected[] = {
            {"default_pg (0)", "0-3", 4, 8, 1048576.0 * 8 / 0.064 * 1.5 / 1e9},
            {"tp (1)", "0-1", 2, 4, 1048576.0 * 4 / 0.036 / 1e9},
            {"tp (2)", "2-3", 2, 4, 1048576.0 * 4 / 0.079 / 1e9},  // (20 + 19.5) ms a step
            {"dp (3)", "0, 2", 2, 4, 1048576.0 * 4 / 0.072 / 1e9}, // (20 + 16) ms a step
            {"dp (4)", "1, 3", 2, 4, 1048576.0 * 4 / 0.038 / 1e9}, // (10 + 9) ms a step
        };
        for (const auto &e : expected) {
            int row = -1;
            for (int r = 0; r < model.rowCount(); ++r)
                if (model.index(r, group).data().toString() == QLatin1String(e.label))
                    row = r;
            QVERIFY2(row >= 0, e.label);
            QCOMPARE(model.index(row, members).data().toString(), QString::fromLatin1(e.members));
            QCOMPARE(model.index(row, size).data().toInt(), e.size);
            QCOMPARE(model.index(row, calls).data().toInt(), e.calls);
            QVERIFY2(std::abs(model.index(row, busbw).data().toString().toDouble() - e.busbw) <= 0.005,
                     qPrintable(QStringLiteral("%1: %2 against %3").arg(e.label, model.index(row, busbw).data().toString()).arg(e.busbw)));
        }
    }
};

QTEST_MAIN(TestProcessGroupsPage)
#include "tst_processgroupspage.moc"
