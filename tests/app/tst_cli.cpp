#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runCli(const QStringList &arguments)
{
    QProcess process;
    process.start(QStringLiteral(PYROMETER_CLI), arguments);
    process.waitForFinished(60'000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

const QStringList kSubcommands{"info", "ops",   "kernels", "steps", "memory", "flame",
                               "advise", "diff", "profile", "flops", "sweep", "compare"};

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void helpListsEverySubcommand()
    {
        const auto run = runCli({"--help"});
        QCOMPARE(run.exitCode, 0);
        for (const auto &name : kSubcommands)
            QVERIFY2(run.out.contains(QRegularExpression("\\n\\s+" + name + "\\s")), qPrintable(name));
        QVERIFY(run.out.contains("Exit status"));
    }

    void versionNamesPyrometerAndLibtorch()
    {
        const auto run = runCli({"--version"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(QRegularExpression("^pyrometer-cli \\d+\\.\\d+\\.\\d+ \\(libtorch 1\\.13")), qPrintable(run.out));
    }

    void missingSubcommandIsBadInput()
    {
        const auto run = runCli({});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(!run.err.isEmpty());
    }

    void unknownSubcommandIsBadInput()
    {
        const auto run = runCli({"frobnicate", "x.json"});
        QCOMPARE(run.exitCode, 2);
    }

    void infoCountsTheDemoTrace()
    {
        const auto run = runCli({"info", QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo.pt.trace.json"), "--format", "json"});
        QCOMPARE(run.exitCode, 0);
        const auto json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        // 285 complete events, as Python's json module counts them in the file.
        QCOMPARE(json.value("events").toInteger(), 285);
        QCOMPARE(json.value("phases").toObject().value("X").toInteger(), 285);
        QCOMPARE(json.value("tracks").toInteger(), 1);
        QVERIFY(json.value("span_us").toDouble() > 0);
        QVERIFY(json.contains("load_seconds") && json.contains("bytes"));
    }

    void infoFormats_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("expected");
        QTest::addRow("table") << "table" << "events           285";
        QTest::addRow("csv") << "csv" << "events,285";
        QTest::addRow("md") << "md" << "| events | 285 |";
    }
    void infoFormats()
    {
        QFETCH(QString, format);
        QFETCH(QString, expected);
        const auto run = runCli({"info", QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo.pt.trace.json"), "--format", format});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains(expected), qPrintable(run.out));
    }

    void infoRefusesBadInput_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("says");
        QTest::addRow("missing") << "/no/such/trace.json" << "no such file";
        QTest::addRow("not json") << QStringLiteral(PYROMETER_RESOURCES_DIR "/icons/pyrometer.svg") << "byte 0";
        QTest::addRow("empty log dir") << QStringLiteral(PYROMETER_FIXTURES_DIR "/models") << "no traces here";
    }
    void infoRefusesBadInput()
    {
        QFETCH(QString, path);
        QFETCH(QString, says);
        const auto run = runCli({"info", path});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.startsWith("pyrometer-cli: " + path), qPrintable(run.err));
        QVERIFY2(run.err.contains(says), qPrintable(run.err));
        QCOMPARE(run.err.count('\n'), 1);
    }

    void unknownFormatIsBadInput()
    {
        const auto run = runCli({"info", QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo.pt.trace.json"), "--format", "xml"});
        QCOMPARE(run.exitCode, 2);
    }

    void subcommandHelpShowsUsage()
    {
        const auto run = runCli({"profile", "--help"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("--input"), qPrintable(run.out));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
