#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QString err;
};

Run runGui(const QStringList &arguments, const QString &home)
{
    QProcess process;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    // Keep the user's settings and cache out of it.
    env.insert("HOME", home);
    env.insert("XDG_CONFIG_HOME", home + "/config");
    env.insert("XDG_CACHE_HOME", home + "/cache");
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(PYROMETER_GUI), arguments);
    // A hang or a crash is never read as success: -2 when it did not finish, -1 when it crashed.
    if (!process.waitForFinished(240'000)) {
        process.kill();
        process.waitForFinished();
        return {-2, "pyrometer did not finish in 240 s: " + QString::fromUtf8(process.readAllStandardError())};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardError())};
}

} // namespace

class TestGuiApp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void screenshotOfEachPage_data()
    {
        QTest::addColumn<QString>("view");
        for (const auto *view : {"overview", "model"})
            QTest::addRow("%s", view) << QString::fromLatin1(view);
    }
    void screenshotOfEachPage()
    {
        QFETCH(QString, view);
        QTemporaryDir home;
        const QString png = home.filePath(view + ".png");
        const auto run = runGui({"--screenshot", png, "--view", view}, home.path());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1280, 800));
        // Not a blank grab: a page with content has many distinct colours.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
    }

    // --help and --version print and exit without a display (no QPA platform to connect to).
    void helpNeedsNoDisplay()
    {
        for (const QString &flag : {QStringLiteral("--help"), QStringLiteral("--version")}) {
            QProcess process;
            auto env = QProcessEnvironment::systemEnvironment();
            env.remove("DISPLAY");
            env.remove("WAYLAND_DISPLAY");
            env.insert("QT_QPA_PLATFORM", "xcb"); // would fail to connect if a display were opened
            process.setProcessEnvironment(env);
            process.start(QStringLiteral(PYROMETER_GUI), {flag});
            QVERIFY(process.waitForFinished(60'000));
            QCOMPARE(process.exitStatus(), QProcess::NormalExit);
            QCOMPARE(process.exitCode(), 0);
            const QString out = QString::fromUtf8(process.readAllStandardOutput());
            QVERIFY2(flag == QStringLiteral("--help") ? out.contains(QStringLiteral("--screenshot")) : out.startsWith(QStringLiteral("Pyrometer ")),
                     qPrintable(out + QString::fromUtf8(process.readAllStandardError())));
        }
    }

    void unknownViewIsRefused()
    {
        QTemporaryDir home;
        const auto run = runGui({"--screenshot", home.filePath("x.png"), "--view", "flames"}, home.path());
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("unknown view 'flames'"), qPrintable(run.err));
        // The refusal names every page, as --help does.
        for (const QString name : {"overview", "timeline", "flamegraph", "operators", "memory", "model", "compare",
                                   "distributed", "gpu", "roofline"})
            QVERIFY2(run.err.contains(name), qPrintable(name + ": " + run.err));
    }

    void helpNamesEveryView()
    {
        QProcess process;
        process.start(QStringLiteral(PYROMETER_GUI), {QStringLiteral("--help")});
        QVERIFY(process.waitForFinished(60'000));
        QCOMPARE(process.exitCode(), 0);
        // Qt wraps the option's text: read it as one line.
        const QString out = QString::fromUtf8(process.readAllStandardOutput()).simplified();
        const auto at = out.indexOf(QStringLiteral("Page to show:"));
        QVERIFY2(at >= 0, qPrintable(out));
        const QString text = out.mid(at, out.indexOf(QLatin1Char('.'), at) - at);
        QCOMPARE(text,
                 QStringLiteral("Page to show: overview, timeline, flamegraph, operators, memory, model, compare, "
                                "distributed, gpu, roofline or snapshots"));
    }

    void pythonThatIsNoInterpreterIsRefused()
    {
        QTemporaryDir home;
        const auto run = runGui({"--screenshot", home.filePath("x.png"), "--python", "/no/such/python3"}, home.path());
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--python /no/such/python3: no such interpreter"), qPrintable(run.err));
    }

    void screenshotFailsWhenAnInputFails()
    {
        QTemporaryDir home;
        const QString missing = home.filePath("missing.json");
        const auto run = runGui({"--screenshot", home.filePath("x.png"), missing}, home.path());
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains(missing), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestGuiApp)
#include "tst_gui_app.moc"
