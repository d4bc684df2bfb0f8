// pyrometer-cli snapshot over snapshots scripts/make-snapshots.py writes: its JSON has the figures
// core computes (and scripts/read-snapshot.py reads), the table names the OOM's verdict, --diff
// lists what grew, and bad input exits 2 with the file and the problem on one line.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "clitestutil.h"

using namespace pyrometer::testing;

namespace {

const QString kDir = QStringLiteral(PYROMETER_TEST_SNAPSHOTS_DIR);

QJsonObject jsonOf(const Run &run)
{
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

QJsonObject expected(const QString &name)
{
    QFile file(kDir + QLatin1Char('/') + name + QStringLiteral(".expected.json"));
    file.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(file.readAll()).object();
}

} // namespace

class TestCliSnapshot : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jsonHasTheFiguresOfTheIndependentReading_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("two devices") << "basic_p5.pickle";
        QTest::addRow("oom") << "oom.pickle";
        QTest::addRow("legacy") << "legacy.pickle";
    }
    void jsonHasTheFiguresOfTheIndependentReading()
    {
        QFETCH(QString, name);
        const auto run = runCli({QStringLiteral("snapshot"), kDir + QLatin1Char('/') + name, QStringLiteral("--format"),
                                 QStringLiteral("json"), QStringLiteral("--top"), QStringLiteral("10")});
        QCOMPARE(run.exitCode, 0);
        const auto got = jsonOf(run);
        const auto want = expected(name);
        for (const char *key :
             {"segments", "reserved_bytes", "allocated_bytes", "active_bytes", "peak_active_bytes", "events"})
            QCOMPARE(got.value(QLatin1String(key)).toInteger(), want.value(QLatin1String(key)).toInteger());
        QCOMPARE(got.value(QStringLiteral("ooms")).toArray().size(),
                 want.value(QStringLiteral("ooms")).toArray().size());
        // What was live at the peak of the busiest device: device 0 in all three.
        const auto groups = got.value(QStringLiteral("at")).toObject().value(QStringLiteral("groups")).toArray();
        const auto top = want.value(QStringLiteral("devices"))
                             .toArray()
                             .at(0)
                             .toObject()
                             .value(QStringLiteral("top_at_peak"))
                             .toArray();
        QCOMPARE(groups.size(), top.size());
        for (qsizetype i = 0; i < groups.size(); ++i) {
            QCOMPARE(groups[i].toObject().value(QStringLiteral("key")).toString(),
                     top[i].toObject().value(QStringLiteral("key")).toString());
            QCOMPARE(groups[i].toObject().value(QStringLiteral("bytes")).toInteger(),
                     top[i].toObject().value(QStringLiteral("bytes")).toInteger());
        }
    }

    void tableSaysWhyTheOomFailed()
    {
        const auto run = runCli({QStringLiteral("snapshot"), kDir + QStringLiteral("/oom.pickle"),
                                 QStringLiteral("--at"), QStringLiteral("oom")},
                                QStringLiteral("200"));
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QStringLiteral("fragmentation")), qPrintable(run.out));
        QVERIFY(run.out.contains(QStringLiteral("Live at oom")));
        QVERIFY(run.out.contains(QStringLiteral("the largest free piece 2.00 MiB")));
    }

    void diffListsWhatGrew()
    {
        const auto run =
            runCli({QStringLiteral("snapshot"), kDir + QStringLiteral("/basic_p4.pickle"), QStringLiteral("--diff"),
                    kDir + QStringLiteral("/oom.pickle"), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const auto got = jsonOf(run);
        const auto grew = got.value(QStringLiteral("grew")).toArray();
        QVERIFY(!grew.isEmpty());
        qint64 sum = 0;
        for (const auto &row : grew)
            sum += row.toObject().value(QStringLiteral("delta_bytes")).toInteger();
        const auto peak = [&](const char *side) {
            return got.value(QLatin1String(side))
                .toObject()
                .value(QStringLiteral("at"))
                .toObject()
                .value(QStringLiteral("live_bytes"))
                .toInteger();
        };
        QCOMPARE(sum, peak("other") - peak("base"));
        QVERIFY(grew.first().toObject().value(QStringLiteral("delta_bytes")).toInteger() > 0);
    }

    // Joined with the trace of the same run: the offset the script used, its ten allocations, and
    // the op that made each group's memory (in the table, the JSON and the CSV).
    void joinsWithTheTrace()
    {
        const auto want = expected(QStringLiteral("basic_trace"));
        const QStringList base = {QStringLiteral("snapshot"), kDir + QStringLiteral("/basic_p4.pickle"),
                                  QStringLiteral("--device"), QStringLiteral("0"),
                                  QStringLiteral("--trace"),  kDir + QStringLiteral("/basic_trace.json"),
                                  QStringLiteral("--at"),     QStringLiteral("end")};
        const auto json = runCli(base + QStringList{QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        const auto join = jsonOf(json).value(QStringLiteral("trace_join")).toObject();
        QCOMPARE(join.value(QStringLiteral("offset_ns")).toInteger(),
                 want.value(QStringLiteral("offset_us")).toInteger() * 1000);
        QCOMPARE(join.value(QStringLiteral("matched")).toInteger(), 10);
        QCOMPARE(join.value(QStringLiteral("offset_from_user")).toBool(), false);
        // At the end the Adam state and the weights are live; the step's allocations are freed.
        const auto groups =
            jsonOf(json).value(QStringLiteral("at")).toObject().value(QStringLiteral("groups")).toArray();
        QVERIFY(!groups.isEmpty());
        for (const auto &g : groups)
            QVERIFY(g.toObject().value(QStringLiteral("ops")).toArray().isEmpty());
        // Mid-step, after its last allocation: the activations were made by aten::linear.
        const auto mid =
            runCli({QStringLiteral("snapshot"), kDir + QStringLiteral("/basic_p4.pickle"), QStringLiteral("--device"),
                    QStringLiteral("0"), QStringLiteral("--trace"), kDir + QStringLiteral("/basic_trace.json"),
                    QStringLiteral("--at"), QStringLiteral("peak"), QStringLiteral("--format"), QStringLiteral("csv")});
        QCOMPARE(mid.exitCode, 0);
        QVERIFY2(mid.out.section(QLatin1Char('\n'), 0, 0).endsWith(QStringLiteral("made_by")), qPrintable(mid.out));
        const auto table =
            runCli(base.mid(0, base.size() - 2) + QStringList{QStringLiteral("--at"), QStringLiteral("peak")});
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.contains(QStringLiteral("made by")), qPrintable(table.out));
        // The message is wrapped to the terminal's width, which depends on how long the paths are.
        QVERIFY2(table.out.simplified().contains(QStringLiteral("10 of the trace's 10")), qPrintable(table.out));
    }

    // A report of a snapshot: its figures, its peak and its OOM with the verdict.
    void reportHasThePeakAndTheOom()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("oom.md"));
        const auto run =
            runCli({QStringLiteral("report"), kDir + QStringLiteral("/oom.pickle"), QStringLiteral("-o"), out});
        QCOMPARE(run.exitCode, 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(text.contains(QStringLiteral("Memory snapshot: oom.pickle")), qPrintable(text.left(400)));
        QVERIFY(text.contains(QStringLiteral("Live at the peak, device 0")));
        QVERIFY(text.contains(QStringLiteral("Out of memory, device 0")));
        QVERIFY(text.contains(QStringLiteral("fragment")));
        // A damaged one is bad input, named.
        const auto bad = runCli({QStringLiteral("report"), kDir + QStringLiteral("/truncated.pickle"),
                                 QStringLiteral("-o"), dir.filePath(QStringLiteral("bad.md"))});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains(QStringLiteral("truncated.pickle")));
    }

    void badInputExitsTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("words");
        QTest::addRow("a class") << QStringList{kDir + QStringLiteral("/class_ref.pickle")} << "never runs";
        QTest::addRow("truncated") << QStringList{kDir + QStringLiteral("/truncated.pickle")} << "truncated";
        QTest::addRow("no OOM") << QStringList{kDir + QStringLiteral("/basic_p4.pickle"), QStringLiteral("--at"),
                                               QStringLiteral("oom")}
                                << "no OOM";
        QTest::addRow("no such device") << QStringList{kDir + QStringLiteral("/oom.pickle"), QStringLiteral("--device"),
                                                       QStringLiteral("3")}
                                        << "1 device";
        QTest::addRow("no times") << QStringList{kDir + QStringLiteral("/legacy.pickle"), QStringLiteral("--at"),
                                                 QStringLiteral("1ms")}
                                  << "#N";
        const QString basic = kDir + QStringLiteral("/basic_p4.pickle");
        const QString trace = kDir + QStringLiteral("/basic_trace.json");
        QTest::addRow("another run's trace")
            << QStringList{basic, QStringLiteral("--trace"), kDir + QStringLiteral("/unrelated_trace.json")}
            << "same run";
        QTest::addRow("an offset that is not one")
            << QStringList{basic, QStringLiteral("--trace"), trace, QStringLiteral("--offset"), QStringLiteral("soon")}
            << "not seconds";
        QTest::addRow("no such trace") << QStringList{basic, QStringLiteral("--trace"),
                                                      kDir + QStringLiteral("/gone.json")}
                                       << "gone.json";
        QTest::addRow("no times to join")
            << QStringList{kDir + QStringLiteral("/legacy.pickle"), QStringLiteral("--trace"), trace} << "time_us";
    }
    void badInputExitsTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, words);
        const auto run = runCli(QStringList{QStringLiteral("snapshot")} + arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(words), qPrintable(run.err));
        QVERIFY(run.err.contains(arguments.first()));
        QCOMPARE(run.err.trimmed().count(QLatin1Char('\n')), 0);
    }
};

QTEST_GUILESS_MAIN(TestCliSnapshot)
#include "tst_cli_snapshot.moc"
