// pyrometer-cli snapshot over snapshots scripts/make-snapshots.py writes: its JSON has the figures
// core computes (and scripts/read-snapshot.py reads), the table names the OOM's verdict, --diff
// lists what grew, and bad input exits 2 with the file and the problem on one line.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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
