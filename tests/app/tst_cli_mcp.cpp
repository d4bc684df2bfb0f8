// pyrometer-cli mcp: driven by the official MCP client (@modelcontextprotocol/sdk, run by node) through
// a whole session whose every figure must equal pyrometer-cli's own JSON on the same file; and by
// hand, line by line, with malformed messages, a memory budget and the write folder.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "clitestutil.h"

using namespace pyrometer::testing;

namespace {

const QString kTraces = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces");
const QString kBert = kTraces + QStringLiteral("/gaunernst_bert-small-uncased__1016001.json.gz");

QJsonObject cliJson(const QStringList &arguments)
{
    const auto run = runCli(arguments + QStringList{QStringLiteral("--format"), QStringLiteral("json")});
    if (run.exitCode != 0)
        qWarning("pyrometer-cli %s: %s", qPrintable(arguments.join(' ')), qPrintable(run.err));
    return QJsonDocument::fromJson(run.out.toUtf8()).object();
}

// A trace of many small ops: long enough to load that a cancel at its first progress lands mid-way.
void writeBigTrace(const QString &path)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"traceEvents\":[");
    QByteArray chunk;
    for (int i = 0; i < 400000; ++i) {
        chunk += (i ? "," : "") + QStringLiteral("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%1\",\"pid\":1,"
                                                 "\"tid\":1,\"ts\":%2,\"dur\":3,\"args\":{\"External id\":%3}}")
                                      .arg(i % 50)
                                      .arg(qint64(i) * 5)
                                      .arg(i)
                                      .toUtf8();
        if (chunk.size() > (1 << 20)) {
            file.write(chunk);
            chunk.clear();
        }
    }
    file.write(chunk + "]}");
}

// The server spoken to line by line, as a client without the SDK would.
class RawSession {
public:
    explicit RawSession(const QStringList &options = {})
    {
        m_process.start(QStringLiteral(PYROMETER_CLI), QStringList{QStringLiteral("mcp")} + options);
        m_process.waitForStarted();
    }
    ~RawSession()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.closeWriteChannel();
            if (!m_process.waitForFinished(30'000))
                m_process.kill();
        }
    }

    void send(const QByteArray &line) { m_process.write(line + '\n'); }

    // Sends a request and waits for its answer (notifications before it are kept).
    QJsonObject request(int id, const QString &method, const QJsonObject &params = {})
    {
        send(QJsonDocument(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                       {QStringLiteral("id"), id},
                                       {QStringLiteral("method"), method},
                                       {QStringLiteral("params"), params}})
                 .toJson(QJsonDocument::Compact));
        return answer(QJsonValue(id));
    }

    QJsonObject call(int id, const QString &tool, const QJsonObject &arguments)
    {
        return request(id, QStringLiteral("tools/call"),
                       {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}})
            .value(QStringLiteral("result"))
            .toObject();
    }

    // The next message with this id (null: an error about a line without one).
    QJsonObject answer(const QJsonValue &id)
    {
        for (int waited = 0; waited < 600; ++waited) {
            while (m_process.canReadLine()) {
                const auto message = QJsonDocument::fromJson(m_process.readLine()).object();
                if (message.contains(QStringLiteral("id")) && message.value(QStringLiteral("id")) == id)
                    return message;
                m_other.append(message);
            }
            if (m_process.state() == QProcess::NotRunning)
                break;
            m_process.waitForReadyRead(100);
        }
        return {};
    }

    // Ends the input; true when the server then exits by itself with status 0.
    bool finish()
    {
        m_process.closeWriteChannel();
        return m_process.waitForFinished(60'000) && m_process.exitStatus() == QProcess::NormalExit &&
               m_process.exitCode() == 0;
    }

    QProcess &process() { return m_process; }

private:
    QProcess m_process;
    QList<QJsonObject> m_other;
};

int errorCode(const QJsonObject &message)
{
    return message.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toInt();
}

QString text(const QJsonObject &result)
{
    return result.value(QStringLiteral("content")).toArray().first().toObject().value(QStringLiteral("text")).toString();
}

} // namespace

class TestCliMcp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The official client: list the tools, open the H100 BERT trace, ask summary, ops and the
    // critical path, open a bad file, cancel a long load, read a report, call on a closed handle.
    void officialClientSession()
    {
        const QString clientDir = QStringLiteral(PYROMETER_MCP_CLIENT_DIR);
        QVERIFY2(QFile::exists(clientDir + QStringLiteral("/node_modules/@modelcontextprotocol/sdk/package.json")),
                 "the MCP client is not installed under build/mcp-client: scripts/setup installs it");
        const QString node = QStandardPaths::findExecutable(QStringLiteral("node"));
        QVERIFY2(!node.isEmpty(), "no node: scripts/setup installs nodejs");
        QTemporaryDir dir;
        const QString big = dir.filePath(QStringLiteral("big.json"));
        writeBigTrace(big);
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        QFile badFile(bad);
        QVERIFY(badFile.open(QIODevice::WriteOnly));
        badFile.write("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"aten::mm\"");
        badFile.close();

        QProcess client;
        client.start(node, {QStringLiteral(PYROMETER_MCP_CLIENT_SCRIPT), clientDir, QStringLiteral(PYROMETER_CLI), kBert,
                            big, bad});
        QVERIFY(client.waitForFinished(300'000));
        const auto err = QString::fromUtf8(client.readAllStandardError());
        QVERIFY2(client.exitStatus() == QProcess::NormalExit && client.exitCode() == 0, qPrintable(err));
        const auto out = QJsonDocument::fromJson(client.readAllStandardOutput()).object();
        QVERIFY2(!out.isEmpty(), qPrintable(err));

        const auto tools = out.value(QStringLiteral("tools")).toArray().toVariantList();
        for (const auto *name : {"open_trace", "open_job", "open_snapshot", "open_model", "summary", "ops", "kernels",
                                 "steps", "idle", "launches", "critical_path", "sequences", "memory", "roofline",
                                 "advise", "diff", "profile", "flops", "sweep", "compare", "close"})
            QVERIFY2(tools.contains(QString::fromLatin1(name)), name);

        // Every figure is pyrometer-cli's own.
        QCOMPARE(out.value(QStringLiteral("ops")).toObject(), cliJson({QStringLiteral("ops"), kBert}));
        QCOMPARE(out.value(QStringLiteral("criticalPath")).toObject(),
                 cliJson({QStringLiteral("critical-path"), kBert}));
        const auto summary = out.value(QStringLiteral("summary")).toObject();
        QCOMPARE(summary.value(QStringLiteral("steps")).toObject(), cliJson({QStringLiteral("steps"), kBert}));
        QCOMPARE(summary.value(QStringLiteral("ops")).toObject(),
                 cliJson({QStringLiteral("ops"), kBert, QStringLiteral("--top"), QStringLiteral("5")}));
        QCOMPARE(summary.value(QStringLiteral("kernels")).toObject(),
                 cliJson({QStringLiteral("kernels"), kBert, QStringLiteral("--top"), QStringLiteral("5")}));
        QCOMPARE(summary.value(QStringLiteral("memory")).toObject(), cliJson({QStringLiteral("memory"), kBert}));
        QCOMPARE(summary.value(QStringLiteral("advice")).toObject(), cliJson({QStringLiteral("advise"), kBert}));
        const auto info = cliJson({QStringLiteral("info"), kBert});
        for (const auto *key : {"events", "span_us", "tracks", "phases"})
            QCOMPARE(summary.value(QStringLiteral("info")).toObject().value(QLatin1String(key)), info.value(QLatin1String(key)));
        const auto firstOp = out.value(QStringLiteral("ops")).toObject().value(QStringLiteral("rows")).toArray().first();
        QVERIFY(out.value(QStringLiteral("opsText")).toString().contains(firstOp.toObject().value(QStringLiteral("name")).toString()));

        // A bad file: a tool error with the CLI's message.
        const auto badCall = out.value(QStringLiteral("bad")).toObject();
        QVERIFY(badCall.value(QStringLiteral("isError")).toBool());
        const auto cliBad = runCli({QStringLiteral("info"), bad});
        QCOMPARE(cliBad.exitCode, 2);
        QCOMPARE(QStringLiteral("pyrometer-cli: ") + badCall.value(QStringLiteral("text")).toString() + '\n', cliBad.err);

        // The cancelled load: the call rejected, the loader stopped mid-way, nothing kept.
        const auto cancel = out.value(QStringLiteral("cancel")).toObject();
        QVERIFY2(cancel.value(QStringLiteral("rejected")).toBool(), qPrintable(QJsonDocument(cancel).toJson()));
        QVERIFY(cancel.value(QStringLiteral("progressSeen")).toInt() >= 1);
        const auto log = out.value(QStringLiteral("serverLog")).toString();
        QVERIFY2(log.contains(big + QStringLiteral(": loading cancelled")), qPrintable(log));
        const auto handle = out.value(QStringLiteral("open")).toObject().value(QStringLiteral("handle")).toString();
        QCOMPARE(out.value(QStringLiteral("documentsAfterCancel")).toArray(), QJsonArray{handle});

        // Reports as resources.
        QVERIFY(out.value(QStringLiteral("resources")).toArray().contains(
            QStringLiteral("pyrometer://documents/") + handle + QStringLiteral("/report.md")));
        const auto report = out.value(QStringLiteral("reportMarkdown")).toString();
        QVERIFY2(report.startsWith(QStringLiteral("# Pyrometer report: gaunernst_bert")), qPrintable(report.left(200)));

        // A closed handle, a wrong type, an unknown tool.
        const auto closed = out.value(QStringLiteral("closedCall")).toObject();
        QVERIFY(closed.value(QStringLiteral("isError")).toBool());
        QVERIFY(closed.value(QStringLiteral("text")).toString().startsWith(QStringLiteral("no open document ") + handle));
        QVERIFY(out.value(QStringLiteral("wrongType")).toObject().value(QStringLiteral("isError")).toBool());
        QVERIFY(out.value(QStringLiteral("unknownTool")).toObject().value(QStringLiteral("error")).toString().contains(
            QStringLiteral("-32602")));
    }

    // Malformed JSON-RPC: each line gets its error, nothing crashes or hangs, and the server
    // still answers after them.
    void malformedMessagesAreAnswered()
    {
        RawSession server;
        server.send("not json at all");
        QCOMPARE(errorCode(server.answer(QJsonValue::Null)), -32700);
        server.send("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
        QCOMPARE(errorCode(server.answer(QJsonValue::Null)), -32600);
        server.send("{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}");
        QCOMPARE(errorCode(server.answer(2)), -32600);
        server.send("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}");
        QCOMPARE(errorCode(server.answer(QJsonValue::Null)), -32600);
        server.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":[1,2]}");
        QCOMPARE(errorCode(server.answer(3)), -32602);
        QCOMPARE(errorCode(server.request(4, QStringLiteral("no/such/method"))), -32601);
        server.send(QByteArray(100'000, '['));
        QCOMPARE(errorCode(server.answer(QJsonValue::Null)), -32600);
        // 20 MiB in one line, past the 16 MiB bound: dropped as it arrives, then said.
        server.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"pad\":\"" +
                    QByteArray(20 << 20, 'x') + "\"}}");
        const auto huge = server.answer(QJsonValue::Null);
        QCOMPARE(errorCode(huge), -32600);
        QVERIFY(huge.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString().contains(
            QStringLiteral("past the bound")));
        // A tool's arguments of the wrong type: a tool error, not a crash.
        const auto wrong = server.call(6, QStringLiteral("ops"), {{QStringLiteral("handle"), QStringLiteral("trace-1")},
                                                                  {QStringLiteral("top"), QStringLiteral("ten")}});
        QVERIFY(wrong.value(QStringLiteral("isError")).toBool());
        QCOMPARE(text(wrong), QStringLiteral("\"top\" must be an integer"));
        const auto unknownArgument = server.call(7, QStringLiteral("ops"), {{QStringLiteral("handle"), QStringLiteral("trace-1")},
                                                                            {QStringLiteral("path"), QStringLiteral("/etc/passwd")}});
        QCOMPARE(text(unknownArgument), QStringLiteral("ops takes no argument \"path\""));
        QVERIFY(server.request(8, QStringLiteral("ping")).contains(QStringLiteral("result")));
        QVERIFY(server.finish());
    }

    // Past the memory budget the least recently used document closes, and the result says so.
    void memoryBudgetClosesTheLeastRecentlyUsed()
    {
        RawSession server({QStringLiteral("--memory-budget"), QStringLiteral("1MiB")});
        const auto first = server.call(1, QStringLiteral("open_trace"), {{QStringLiteral("path"), kBert}});
        QVERIFY2(!first.value(QStringLiteral("isError")).toBool(), qPrintable(text(first)));
        const auto second = server.call(
            2, QStringLiteral("open_trace"),
            {{QStringLiteral("path"), kTraces + QStringLiteral("/mi250_minitoy_train_ROCm6_2_kineto.json.gz")}});
        QVERIFY2(text(second).contains(QStringLiteral("Closed trace-1")), qPrintable(text(second)));
        const auto closed = second.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("closed")).toArray();
        QCOMPARE(closed.size(), 1);
        QCOMPARE(closed.first().toObject().value(QStringLiteral("handle")).toString(), QStringLiteral("trace-1"));
        const auto documents = server.call(3, QStringLiteral("documents"), {});
        const auto list = documents.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("documents")).toArray();
        QCOMPARE(list.size(), 1);
        QCOMPARE(list.first().toObject().value(QStringLiteral("handle")).toString(), QStringLiteral("trace-2"));
        QVERIFY(text(server.call(4, QStringLiteral("ops"), {{QStringLiteral("handle"), QStringLiteral("trace-1")}}))
                    .startsWith(QStringLiteral("no open document trace-1")));
        QVERIFY(server.finish());
    }

    // A model runs in its worker as from the CLI, through either engine: the same figures.
    void modelToolsRunAsFromTheCli()
    {
        const QString model = QStringLiteral(PYROMETER_TEST_MODELS_DIR "/mlp.pt");
        RawSession server;
        const auto embedded = server.call(1, QStringLiteral("open_model"), {{QStringLiteral("path"), model}});
        QVERIFY2(!embedded.value(QStringLiteral("isError")).toBool(), qPrintable(text(embedded)));
        const auto flops =
            server.call(2, QStringLiteral("flops"), {{QStringLiteral("handle"), QStringLiteral("model-1")}});
        QVERIFY2(!flops.value(QStringLiteral("isError")).toBool(), qPrintable(text(flops)));
        const auto cliFlops = cliJson({QStringLiteral("flops"), model});
        QCOMPARE(flops.value(QStringLiteral("structuredContent")).toObject(), cliFlops);
        // Its text quotes the JSON's figures.
        QVERIFY2(text(flops).contains(QString::number(cliFlops.value(QStringLiteral("params")).toInteger()) +
                                      QStringLiteral(" parameters")),
                 qPrintable(text(flops)));
        const auto python = server.call(
            3, QStringLiteral("open_model"),
            {{QStringLiteral("path"), model}, {QStringLiteral("python"), QStringLiteral("/usr/bin/python3")}});
        QVERIFY2(!python.value(QStringLiteral("isError")).toBool(), qPrintable(text(python)));
        const auto inPython =
            server.call(4, QStringLiteral("flops"), {{QStringLiteral("handle"), QStringLiteral("model-2")}});
        QVERIFY2(!inPython.value(QStringLiteral("isError")).toBool(), qPrintable(text(inPython)));
        QCOMPARE(
            inPython.value(QStringLiteral("structuredContent")).toObject(),
            cliJson({QStringLiteral("flops"), model, QStringLiteral("--python"), QStringLiteral("/usr/bin/python3")}));
        // A model with a wrong input shape: the CLI's message, as a tool error.
        const auto wrong = server.call(
            5, QStringLiteral("flops"),
            {{QStringLiteral("handle"), QStringLiteral("model-1")}, {QStringLiteral("input"), QStringLiteral("4x3")}});
        QVERIFY(wrong.value(QStringLiteral("isError")).toBool());
        const auto cli = runCli({QStringLiteral("flops"), model, QStringLiteral("--input"), QStringLiteral("4x3")});
        QCOMPARE(cli.exitCode, 2);
        QCOMPARE(text(wrong) + '\n', cli.err);
        // A missing model is refused at once.
        QVERIFY(server.call(6, QStringLiteral("open_model"), {{QStringLiteral("path"), QStringLiteral("/no/such.pt")}})
                    .value(QStringLiteral("isError"))
                    .toBool());
        QVERIFY(server.finish());
    }

    // An answer past --max-result has its lists cut, and says so; what it keeps is the CLI's.
    void largeAnswersAreCut()
    {
        RawSession server({QStringLiteral("--max-result"), QStringLiteral("4KiB")});
        server.call(1, QStringLiteral("open_trace"), {{QStringLiteral("path"), kBert}});
        const auto ops = server.call(2, QStringLiteral("ops"), {{QStringLiteral("handle"), QStringLiteral("trace-1")}});
        QVERIFY2(!ops.value(QStringLiteral("isError")).toBool(), qPrintable(text(ops)));
        const auto cut = ops.value(QStringLiteral("structuredContent")).toObject();
        const auto cli = cliJson({QStringLiteral("ops"), kBert});
        const auto truncated = cut.value(QStringLiteral("truncated")).toObject();
        const auto kept = truncated.value(QStringLiteral("items_kept")).toInt();
        QVERIFY(kept >= 1);
        const auto rows = cut.value(QStringLiteral("rows")).toArray();
        QCOMPARE(rows.size(), kept);
        QVERIFY(rows.size() < cli.value(QStringLiteral("rows")).toArray().size());
        for (qsizetype i = 0; i < rows.size(); ++i)
            QCOMPARE(rows[i], cli.value(QStringLiteral("rows")).toArray()[i]);
        QCOMPARE(cut.value(QStringLiteral("self_sum_us")), cli.value(QStringLiteral("self_sum_us")));
        const auto json =
            ops.value(QStringLiteral("content")).toArray().last().toObject().value(QStringLiteral("text")).toString();
        QVERIFY2(json.toUtf8().size() <= 4096, qPrintable(QString::number(json.size())));
        // The summary still counts every row, and says how to narrow the answer.
        QVERIFY2(text(ops).startsWith(QString::number(cli.value(QStringLiteral("rows")).toArray().size()) +
                                      QStringLiteral(" operator rows")),
                 qPrintable(text(ops)));
        QVERIFY(text(ops).contains(QStringLiteral("Narrow it with the tool's top")));
        // An answer within the bound is whole.
        const auto top =
            server.call(3, QStringLiteral("ops"),
                        {{QStringLiteral("handle"), QStringLiteral("trace-1")}, {QStringLiteral("top"), 3}});
        QCOMPARE(top.value(QStringLiteral("structuredContent")).toObject(),
                 cliJson({QStringLiteral("ops"), kBert, QStringLiteral("--top"), QStringLiteral("3")}));
        QVERIFY(server.finish());
    }

    // Bad options are bad input: exit 2 with the option and the problem, before serving.
    void badOptionsExitTwo_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("message");
        QTest::addRow("no folder") << QStringList{"--write-dir", "/no/such/folder"}
                                   << "pyrometer-cli: mcp: --write-dir /no/such/folder: no such folder\n";
        QTest::addRow("no size") << QStringList{"--memory-budget", "lots"}
                                 << "pyrometer-cli: mcp: --memory-budget \"lots\": not a size such as 8GiB\n";
        QTest::addRow("too small")
            << QStringList{"--max-result", "12"}
            << "pyrometer-cli: mcp: --max-result \"12\": not a size of 1KiB or more, such as 256KiB\n";
    }
    void badOptionsExitTwo()
    {
        QFETCH(QStringList, options);
        QFETCH(QString, message);
        const auto run = runCli(QStringList{QStringLiteral("mcp")} + options);
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.err, message);
        QVERIFY(run.out.isEmpty());
    }

    // Tools write only into the folder named at the start, and only plain file names there.
    void reportsAreWrittenOnlyToTheWriteFolder()
    {
        {
            RawSession server;
            server.call(1, QStringLiteral("open_trace"), {{QStringLiteral("path"), kBert}});
            const auto refused = server.call(2, QStringLiteral("report"), {{QStringLiteral("handle"), QStringLiteral("trace-1")},
                                                                            {QStringLiteral("name"), QStringLiteral("r.md")}});
            QVERIFY(refused.value(QStringLiteral("isError")).toBool());
            QVERIFY(text(refused).contains(QStringLiteral("--write-dir")));
            QVERIFY(server.finish());
        }
        QTemporaryDir dir;
        RawSession server({QStringLiteral("--write-dir"), dir.path()});
        server.call(1, QStringLiteral("open_trace"), {{QStringLiteral("path"), kBert}});
        for (const auto *name : {"../escape.md", "sub/r.md", "r.txt", ".."}) {
            const auto refused = server.call(2, QStringLiteral("report"), {{QStringLiteral("handle"), QStringLiteral("trace-1")},
                                                                            {QStringLiteral("name"), QLatin1String(name)}});
            QVERIFY2(refused.value(QStringLiteral("isError")).toBool(), name);
        }
        QVERIFY(!QFile::exists(QDir(dir.path()).filePath(QStringLiteral("../escape.md"))));
        const auto written = server.call(3, QStringLiteral("report"), {{QStringLiteral("handle"), QStringLiteral("trace-1")},
                                                                        {QStringLiteral("name"), QStringLiteral("r.html")}});
        QVERIFY2(!written.value(QStringLiteral("isError")).toBool(), qPrintable(text(written)));
        QFile file(dir.filePath(QStringLiteral("r.html")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll().contains("gaunernst_bert-small-uncased__1016001.json.gz"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("r.html")});
        QVERIFY(server.finish());
    }
};

QTEST_GUILESS_MAIN(TestCliMcp)
#include "tst_cli_mcp.moc"
