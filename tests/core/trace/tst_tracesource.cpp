#include "core/trace/tracesource.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
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
        QTest::addRow("host_pid worker, ns span") << "host_1234.1700000000123456789.pt.trace.json" << true << "host_1234"
                                                  << "1700000000123456789";
        // A short number is not a time: HTA's "rank-34.Jul_15_10_52_41.1074" ends in a process id.
        QTest::addRow("pid is not a span") << "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" << true
                                           << "rank-34.Jul_15_10_52_41.1074" << "";
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

    void spanTimeNs()
    {
        using pyrometer::trace::spanTimeNs;
        QCOMPARE(spanTimeNs("1623143089"), std::optional<std::int64_t>(1623143089'000'000'000));
        QCOMPARE(spanTimeNs("1623143089861"), std::optional<std::int64_t>(1623143089861'000'000));
        QCOMPARE(spanTimeNs("1623143089861123"), std::optional<std::int64_t>(1623143089861123'000));
        QCOMPARE(spanTimeNs("1700000000123456789"), std::optional<std::int64_t>(1700000000123456789));
        QCOMPARE(spanTimeNs(""), std::optional<std::int64_t>());
        QCOMPARE(spanTimeNs("1074"), std::optional<std::int64_t>());
        QCOMPARE(spanTimeNs("16231430x9"), std::optional<std::int64_t>());
        QCOMPARE(spanTimeNs("9999999999999999999"), std::optional<std::int64_t>()); // beyond int64
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
        touch(root / "a" / "deep" / "w0.1700000000002.pt.trace.json");
        touch(root / "a" / "deep" / "w0.1700000000001.pt.trace.json");
        touch(root / "top.pt.trace.json");
        touch(root / "c" / "notes.txt");
        const auto runs = discoverRuns(root);
        QCOMPARE(runs.size(), 3u);
        // The log directory itself is a run under its own name.
        const auto rootName = root.filename().string();
        const auto top = std::find_if(runs.begin(), runs.end(), [&](const LogRun &r) { return r.name == rootName; });
        QVERIFY(top != runs.end());
        QCOMPARE(top->files.size(), 1u);
        QCOMPARE(top->files[0].worker, std::string("top"));
        const auto deep = std::find_if(runs.begin(), runs.end(), [](const LogRun &r) { return r.name == "a/deep"; });
        QVERIFY(deep != runs.end());
        QCOMPARE(deep->files[0].span, std::string("1700000000001"));
        const auto b = std::find_if(runs.begin(), runs.end(), [](const LogRun &r) { return r.name == "b"; });
        QVERIFY(b != runs.end());
        QCOMPARE(b->files[0].worker, std::string("w0"));
    }

    // A plain folder of traces, whatever their names: every trace file is listed (gzip and the
    // bare-array form included), JSON that is not a trace is not.
    void plainFolderListsEveryTrace()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const auto write = [&](const std::string &name, const std::string &text) { std::ofstream(root / name) << text; };
        write("before.json", R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", "ts": 1, "dur": 2, "name": "a"}]})");
        write("after.json", R"([{"ph": "X", "ts": 1, "dur": 2, "name": "a", "pid": 1, "tid": 1}])");
        write("rank-34.Jul_15_10_52_41.1074.pt.trace.json", R"({"traceEvents": []})");
        write("config.json", R"({"lr": 0.1, "epochs": 3})");
        write("notes.txt", "traceEvents");
        fs::copy_file(fs::path(PYROMETER_FIXTURES_DIR) / "traces" / "debian_legacy_linear.json.gz", root / "legacy.json.gz");
        const auto runs = discoverRuns(root);
        QCOMPARE(runs.size(), 1u);
        QCOMPARE(runs[0].name, root.filename().string());
        std::vector<std::string> workers;
        for (const auto &file : runs[0].files) {
            workers.push_back(file.worker);
            QCOMPARE(file.span, std::string()); // none of these names holds a time
        }
        QCOMPARE(workers, (std::vector<std::string>{"after", "before", "legacy", "rank-34.Jul_15_10_52_41.1074"}));
        QVERIFY(!looksLikeTrace(root / "config.json"));
        QVERIFY(looksLikeTrace(root / "legacy.json.gz"));
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
