#include "core/trace/tracesource.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace pyrometer::trace;
namespace fs = std::filesystem;

namespace {
void touch(const fs::path &path)
{
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "{}";
}
} // namespace

class TestTraceSource : public QObject {
    Q_OBJECT
private slots:
    void parseTraceFileName_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QString>("worker");
        QTest::addColumn<QString>("span");
        QTest::addRow("worker and span") << "worker0.1623143089861.pt.trace.json.gz" << true << "worker0" << "1623143089861";
        QTest::addRow("plain json") << "worker0.pt.trace.json" << true << "worker0" << "";
        QTest::addRow("host_pid worker") << "host_1234.5678.pt.trace.json" << true << "host_1234" << "5678";
        QTest::addRow("dotted worker") << "node.a.pt.trace.json" << true << "node.a" << "";
        QTest::addRow("not a trace") << "model.pt" << false << "" << "";
        QTest::addRow("plain json name") << "trace.json" << false << "" << "";
        QTest::addRow("no worker") << ".pt.trace.json" << false << "" << "";
    }
    void parseTraceFileName()
    {
        QFETCH(QString, name);
        QFETCH(bool, valid);
        const auto parts = pyrometer::trace::parseTraceFileName(name.toStdString());
        QCOMPARE(parts.has_value(), valid);
        if (!valid)
            return;
        QTEST(QString::fromStdString(parts->worker), "worker");
        QTEST(QString::fromStdString(parts->span), "span");
    }

    void isTraceFileName_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("expected");
        QTest::addRow("json") << "a.json" << true;
        QTest::addRow("json.gz") << "a.json.gz" << true;
        QTest::addRow("gz only") << "a.gz" << false;
        QTest::addRow("model") << "model.pt" << false;
    }
    void isTraceFileName()
    {
        QFETCH(QString, name);
        QTEST(pyrometer::trace::isTraceFileName(name.toStdString()), "expected");
    }

    void classifyInput()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        touch(root / "t.json.gz");
        touch(root / "m.pt");
        QCOMPARE(pyrometer::trace::classifyInput(root / "t.json.gz"), InputKind::TraceFile);
        QCOMPARE(pyrometer::trace::classifyInput(root / "m.pt"), InputKind::Model);
        QCOMPARE(pyrometer::trace::classifyInput(root), InputKind::LogDirectory);
        QCOMPARE(pyrometer::trace::classifyInput(root / "missing.json"), InputKind::Missing);
    }

    void discoverSharedLogDir()
    {
        const fs::path logDir = fs::path(PYROMETER_FIXTURES_DIR) / "traces" / "tb_logdir";
        QVERIFY2(fs::exists(logDir), qPrintable("missing fixture " + QString::fromStdString(logDir.string())));
        const auto runs = discoverRuns(logDir);
        QCOMPARE(runs.size(), 1u);
        QCOMPARE(runs[0].name, std::string("resnet50_num_workers_0"));
        QCOMPARE(runs[0].files.size(), 2u);
        QCOMPARE(runs[0].files[0].worker, std::string("worker0"));
        QCOMPARE(runs[0].files[0].span, std::string("1623143089861"));
        QCOMPARE(runs[0].files[1].span, std::string("1623143566756"));
    }

    void discoverNestedRuns()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        touch(root / "b" / "w1.pt.trace.json");
        touch(root / "b" / "w0.pt.trace.json.gz");
        touch(root / "a" / "deep" / "w0.2.pt.trace.json");
        touch(root / "a" / "deep" / "w0.1.pt.trace.json");
        touch(root / "top.pt.trace.json");
        touch(root / "c" / "notes.txt");
        const auto runs = discoverRuns(root);
        QCOMPARE(runs.size(), 3u);
        QCOMPARE(runs[0].name, std::string("."));
        QCOMPARE(runs[1].name, std::string("a/deep"));
        QCOMPARE(runs[1].files[0].span, std::string("1"));
        QCOMPARE(runs[2].name, std::string("b"));
        QCOMPARE(runs[2].files[0].worker, std::string("w0"));
    }

    void directoryWithoutTraces()
    {
        QTemporaryDir dir;
        touch(fs::path(dir.path().toStdString()) / "x" / "readme.md");
        QVERIFY(discoverRuns(dir.path().toStdString()).empty());
        QVERIFY(discoverRuns("/nonexistent/dir").empty());
    }
};

QTEST_GUILESS_MAIN(TestTraceSource)
#include "tst_tracesource.moc"
