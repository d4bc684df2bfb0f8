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

    void subcommandHelpShowsUsage()
    {
        const auto run = runCli({"profile", "--help"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("--input"), qPrintable(run.out));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
