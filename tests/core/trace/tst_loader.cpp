// Golden figures for every real fixture, and every kind of bad input.
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/trace/byteinput.h"
#include "core/trace/loader.h"
#endif
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "tracetestutil.h"
#endif

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace pyrometer;
using namespace pyrometer::trace;
using namespace pyrometer::trace::testing;
namespace fs = std::filesystem;

namespace {

fs::path fixture(const QString &name)
{
    return fs::path(PYROMETER_FIXTURES_DIR) / "traces" / name.toStdString();
}

QString phases(const TraceInfo &info)
{
    QStringList parts;
    for (const auto &[ph, count] : info.phaseCounts)
        parts << QString::fromStdString(ph) + "=" + QString::number(count);
    return parts.join(' ');
}

std::size_t matchedFlows(const Trace &trace)
{
    std::size_t count = 0;
    for (const auto &flow : trace.flows)
        count += flow.from.track.isValid() && flow.to.track.isValid();
    return count;
}

} // namespace

class TestLoader : public QObject {
    Q_OBJECT
private slots:
    // Texts with unbalanced quotes are plain literals: moc misreads them as raw strings.
    void golden_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qulonglong>("events");
        QTest::addColumn<QString>("phases");
        QTest::addColumn<int>("processes");
        QTest::addColumn<int>("tracks");
        QTest::addColumn<qulonglong>("slices");
        QTest::addColumn<int>("matchedFlows");
        QTest::addColumn<int>("memory");
        QTest::addColumn<qint64>("spanStart");
        QTest::addColumn<qint64>("spanEnd");
        // Event, phase and span figures agree with Python's json module (Decimal timestamps).
        QTest::addRow("hta cpu only") << "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" << 30ull << "M=12 X=16 i=2"
                                      << 2 << 4 << 16ull << 0 << 0 << qint64(1212075525586016)
                                      << qint64(1212076815112118);
        QTest::addRow("hta a100") << "benchmark_result_2869224_1695835535_trace.json.gz" << 1408ull
                                  << "M=38 X=868 f=345 i=2 s=155" << 3 << 5 << 868ull << 139 << 0
                                  << qint64(1695835542481129000) << qint64(1695835585939652000);
        QTest::addRow("hta rocm") << "mi250_minitoy_train_ROCm6_2_kineto.json.gz" << 220ull << "M=60 X=113 f=25 i=2 s=20"
                                  << 3 << 4 << 113ull << 20 << 0 << qint64(4203669603018756)
                                  << qint64(4203669612780634);
        QTest::addRow("tracelens h100") << "gaunernst_bert-small-uncased__1016001.json.gz" << 2551ull
                                        << "M=60 X=2060 f=107 i=238 s=86" << 3 << 4 << 2060ull << 61 << 236
                                        << qint64(1419247332500684) << qint64(1419247337467316);
        QTest::addRow("kineto out of order") << "before_fix_trace.json" << 75ull << "M=60 X=9 f=3 i=2 s=1" << 3 << 3
                                             << 9ull << 1 << 0 << qint64(88437691101719) << qint64(88437691102019);
        QTest::addRow("debian legacy array") << "debian_legacy_linear.json" << 12ull << "X=12" << 1 << 1 << 12ull << 0
                                             << 0 << qint64(174000) << qint64(437000);
        QTest::addRow("debian legacy array gz") << "debian_legacy_linear.json.gz" << 12ull << "X=12" << 1 << 1 << 12ull
                                                << 0 << 0 << qint64(174000) << qint64(437000);
        QTest::addRow("tb span 1") << "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
                                   << 75718ull << "M=20 X=44666 f=9096 i=12840 s=9096" << 3 << 4 << 44666ull << 9096
                                   << 12838 << qint64(1623142623460016000) << qint64(1623142624525739000);
        QTest::addRow("tb span 2") << "tb_logdir/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz"
                                   << 75718ull << "M=20 X=44666 f=9096 i=12840 s=9096" << 3 << 4 << 44666ull << 9096
                                   << 12838 << qint64(1623143093496439000) << qint64(1623143094426065000);
    }
    void golden()
    {
        QFETCH(QString, file);
        const auto path = fixture(file);
        QVERIFY2(fs::exists(path), qPrintable("missing fixture " + QString::fromStdString(path.string())));
        const auto result = loadTrace(path);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const Trace &trace = *result.value();
        QTEST(qulonglong(trace.info.eventCount), "events");
        QTEST(phases(trace.info), "phases");
        QTEST(int(trace.info.processCount), "processes");
        QTEST(int(trace.info.trackCount), "tracks");
        QTEST(qulonglong(trace.sliceCount()), "slices");
        QTEST(int(matchedFlows(trace)), "matchedFlows");
        QTEST(int(trace.memory.size()), "memory");
        QTEST(qint64(trace.info.spanStart), "spanStart");
        QTEST(qint64(trace.info.spanEnd), "spanEnd");
        QCOMPARE(trace.info.warningCount, 0u);
        QCOMPARE(trace.info.fileBytes, fs::file_size(path));
        QVERIFY(trace.info.loadSeconds > 0);
        QVERIFY(trace.info.buildSeconds > 0 && trace.info.buildSeconds < trace.info.loadSeconds);
        // Every track is sorted by start and every parent encloses its child.
        for (const auto &track : trace.tracks) {
            QVERIFY(std::is_sorted(track.start.begin(), track.start.end()));
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                const auto parent = track.parent[i];
                if (!parent.isValid())
                    continue;
                QVERIFY(track.start[parent.value] <= track.start[i]);
                QVERIFY(track.end(parent) >= track.end(EventIndex(i)));
                QCOMPARE(track.lane[parent.value], track.lane[i]);
                QCOMPARE(track.depth[i], track.depth[parent.value] + 1);
            }
        }
    }

    void badInput_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("problem");
        QTest::addRow("empty file") << QByteArray() << "empty";
        QTest::addRow("blanks only") << QByteArray(" \n\t ") << "blanks";
        QTest::addRow("not json") << QByteArray("hello, world") << "not a JSON trace";
        QTest::addRow("object without traceEvents") << QByteArray(R"({"a": 1})") << "no \"traceEvents\"";
        QTest::addRow("traceEvents not an array") << QByteArray(R"({"traceEvents": 3})") << "not an array";
        QTest::addRow("truncated in array") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 2}, {\"ph\": \"X\", \"ts")
                                            << "truncated";
        QTest::addRow("truncated after array") << QByteArray(R"({"traceEvents": [{"ph": "X", "ts": 1}], "a": )")
                                               << "truncated";
        QTest::addRow("truncated prefix") << QByteArray("{\"schemaVersion\": 1, \"devicePro") << "truncated";
        QTest::addRow("NaN ts") << QByteArray(R"([{"ph": "X", "ts": NaN, "dur": 1}])") << "NaN";
        QTest::addRow("Infinity dur") << QByteArray(R"([{"ph": "X", "ts": 1, "dur": Infinity}])") << "Infinity";
        QTest::addRow("invalid utf-8") << QByteArray("[{\"ph\": \"X\", \"name\": \"\xff\xfe\", \"ts\": 1}]") << "UTF-8";
        QTest::addRow("deep nesting") << QByteArray(100000, '[') << "byte";
        QTest::addRow("deep nesting in event")
            << (QByteArray("[{\"ph\": \"X\", \"ts\": 1, \"args\": ") + QByteArray(5000, '[') + "}]") << "byte";
        QTest::addRow("stray close") << QByteArray(R"([{"ph": "X", "ts": 1}}])") << "byte";
        QTest::addRow("trailing garbage") << QByteArray(R"([{"ph": "X", "ts": 1}] xyz)") << "trace.json";
    }
    void badInput()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, problem);
        for (const bool gzip : {false, true}) {
            const std::string data = gzip ? gzipText(text.toStdString()) : text.toStdString();
            const auto result = loadText(data, {}, gzip ? "trace.json.gz" : "trace.json");
            QVERIFY2(!result.ok(), "bad input loaded");
            const auto &message = result.error().message;
            QVERIFY2(message.find("trace.json") != std::string::npos, message.c_str());
            QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
            QVERIFY2(QString::fromStdString(message).contains(problem, Qt::CaseInsensitive), message.c_str());
        }
    }

    void wrongTypesSkipEvents_data()
    {
        QTest::addColumn<QByteArray>("event");
        QTest::addRow("string ts") << QByteArray(R"({"ph": "X", "name": "bad", "ts": "12", "dur": 1})");
        QTest::addRow("negative dur") << QByteArray(R"({"ph": "X", "name": "bad", "ts": 12, "dur": -1})");
        QTest::addRow("object name") << QByteArray(R"({"ph": "X", "name": {}, "ts": 12, "dur": 1})");
        QTest::addRow("array pid") << QByteArray(R"({"ph": "X", "name": "bad", "pid": [1], "ts": 12, "dur": 1})");
        QTest::addRow("not an object") << QByteArray(R"(42)");
        QTest::addRow("no ts") << QByteArray(R"({"ph": "X", "name": "bad", "dur": 1})");
    }
    void wrongTypesSkipEvents()
    {
        QFETCH(QByteArray, event);
        const std::string text = R"({"traceEvents": [{"ph": "X", "name": "good", "ts": 1, "dur": 5}, )"
            + event.toStdString() + R"(, {"ph": "X", "name": "good2", "ts": 2, "dur": 1}]})";
        const auto result = loadText(text);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const auto &trace = *result.value();
        QCOMPARE(trace.info.eventCount, 3u);
        QCOMPARE(trace.sliceCount(), 2u);
        QCOMPARE(trace.info.warningCount, 1u);
        QVERIFY(!findSlice(trace, "bad").first.isValid());
    }

    void deepButValidArgsLoad()
    {
        // Nesting inside args that the model skips is valid JSON: it loads.
        const std::string text = "[{\"ph\": \"X\", \"ts\": 1, \"args\": {\"a\": " + std::string(5000, '[')
            + std::string(5000, ']') + "}}]";
        const auto result = loadText(text);
        QVERIFY(result.ok());
        QCOMPARE(result.value()->info.eventCount, 1u);
    }

    void partialLoad_data()
    {
        QTest::addColumn<bool>("gzip");
        QTest::addRow("plain") << false;
        QTest::addRow("gzip") << true;
    }
    void partialLoad()
    {
        QFETCH(bool, gzip);
        std::string text = R"({"traceEvents": [)";
        for (int i = 0; i < 1000; ++i)
            text += R"({"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": )" + std::to_string(i * 10) + R"(, "dur": 5},)";
        text += "{\"ph\": \"X\", \"name\": \"cut\", \"ts";
        std::string data = text;
        if (gzip) {
            // A real truncated gzip: the compressed stream of a complete file, cut short.
            std::string full = text + "\": 1}]}";
            data = gzipText(full);
            data.resize(data.size() * 3 / 4);
        }
        const auto name = gzip ? "cut.json.gz" : "cut.json";
        const auto failed = loadText(data, {}, name);
        QVERIFY(!failed.ok());
        QVERIFY2(failed.error().message.find("truncated") != std::string::npos, failed.error().message.c_str());

        LoadOptions options;
        options.partial = true;
        const auto result = loadText(data, options, name);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const auto &trace = *result.value();
        QVERIFY(trace.info.partial);
        QVERIFY(trace.info.warningCount >= 1);
        QVERIFY(trace.sliceCount() > 100);
        if (!gzip)
            QCOMPARE(trace.sliceCount(), 1000u);
    }

    // Members written one after another (`cat a.gz b.gz`, or zero padding after a member) are
    // one stream of JSON, as gzip -d reads them.
    void gzipMembersAreReadInTurn()
    {
        std::string events;
        for (int i = 0; i < 200; ++i)
            events += R"({"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": )" + std::to_string(i * 10) + R"(, "dur": 5},)";
        const std::string head = R"({"traceEvents": [)" + events;
        const std::string tail = R"({"ph": "X", "name": "last", "pid": 1, "tid": 1, "ts": 5000, "dur": 5}]})";
        const auto two = loadText(gzipText(head) + gzipText(tail), {}, "two.json.gz");
        QVERIFY2(two.ok(), two.ok() ? "" : two.error().message.c_str());
        QCOMPARE(two.value()->sliceCount(), 201u);
        const auto padded = loadText(gzipText(head + tail) + std::string(512, '\0'), {}, "padded.json.gz");
        QVERIFY2(padded.ok(), padded.ok() ? "" : padded.error().message.c_str());
        QCOMPARE(padded.value()->sliceCount(), 201u);
    }

    // Damaged compressed data is named as such, with the file and where: a wrong CRC-32 in the
    // trailer, and bytes overwritten in the middle of the stream.
    void corruptGzipIsNamed_data()
    {
        QTest::addColumn<int>("where"); // from the end when negative
        QTest::addRow("crc") << -8;
        QTest::addRow("middle") << 0;
    }
    void corruptGzipIsNamed()
    {
        QFETCH(int, where);
        std::string text = R"({"traceEvents": [)";
        std::uint32_t state = 7;
        for (int i = 0; i < 2000; ++i) {
            state = state * 1664525u + 1013904223u; // names that do not compress to nothing
            text += "{\"ph\": \"X\", \"name\": \"op" + std::to_string(state) + "\", \"pid\": 1, \"tid\": 1, \"ts\": "
                + std::to_string(i * 10) + ", \"dur\": 5},";
        }
        text += R"({"ph": "X", "name": "last", "pid": 1, "tid": 1, "ts": 50000, "dur": 5}]})";
        std::string data = gzipText(text);
        if (where < 0) {
            data[data.size() + std::size_t(where)] ^= 0x5a;
        } else {
            for (std::size_t i = data.size() / 2; i < data.size() / 2 + 64; ++i)
                data[i] = char(0xff);
        }
        const auto result = loadText(data, {}, "damaged.json.gz");
        QVERIFY(!result.ok());
        const auto &message = result.error().message;
        QVERIFY2(message.find("damaged.json.gz: ") != std::string::npos, message.c_str());
        QVERIFY2(message.find("corrupt gzip data (") != std::string::npos, message.c_str());
        QVERIFY2(message.find("at compressed byte ") != std::string::npos, message.c_str());
        if (where < 0)
            QVERIFY2(message.find("incorrect data check") != std::string::npos, message.c_str());
    }

    // A .gz name whose content is not gzip is named as such, before any JSON is read: random
    // bytes, a plain JSON trace under a .gz name, an empty file.
    void gzNameWithoutGzipContent_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QByteArray random;
        std::uint32_t state = 12345;
        for (int i = 0; i < 4096; ++i) {
            state = state * 1664525u + 1013904223u;
            random.append(char(state >> 24));
        }
        random[0] = 'x'; // never gzip's magic by chance
        QTest::addRow("random bytes") << random;
        QTest::addRow("plain json") << QByteArray(R"({"traceEvents": []})");
        QTest::addRow("empty") << QByteArray();
    }
    void gzNameWithoutGzipContent()
    {
        QFETCH(QByteArray, bytes);
        const auto result = loadText(bytes.toStdString(), {}, "random.json.gz");
        QVERIFY(!result.ok());
        const auto &message = result.error().message;
        QVERIFY2(message.find("random.json.gz: not a gzip file") != std::string::npos, message.c_str());
        QVERIFY2(message.find("JSON") == std::string::npos, message.c_str());
    }

    void directoryIsAnError()
    {
        QTemporaryDir dir;
        const auto result = loadTrace(dir.path().toStdString());
        QVERIFY(!result.ok());
        QVERIFY(result.error().message.find("directory") != std::string::npos);
    }

    void missingFile()
    {
        const auto result = loadTrace("/nonexistent/x.json");
        QVERIFY(!result.ok());
        QVERIFY(result.error().message.find("/nonexistent/x.json") != std::string::npos);
    }

    void progressAndCancel()
    {
        QTemporaryDir dir;
        std::string text = R"({"traceEvents": [)";
        for (int i = 0; i < 400000; ++i)
            text += R"({"ph": "X", "cat": "cpu_op", "name": "aten::op", "pid": 1, "tid": 2, "ts": )"
                + std::to_string(i * 10) + R"(.125, "dur": 5.5, "args": {"External id": 7}},)";
        text += R"({"ph": "i", "name": "end", "ts": 1}]})";
        const auto path = writeFile(dir, "big.json", text);

        std::vector<int> seen;
        ProgressReporter progress([&](int permille) { seen.push_back(permille); }, std::chrono::milliseconds(0));
        const StopToken stop;
        const auto result = loadTrace(path, {}, progress, stop);
        QVERIFY(result.ok());
        QCOMPARE(result.value()->info.eventCount, 400001u);
        QVERIFY(!seen.empty());
        QCOMPARE(seen.back(), 1000);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));

        const StopToken cancel;
        cancel.requestStop();
        ProgressReporter quiet;
        const auto cancelled = loadTrace(path, {}, quiet, cancel);
        QVERIFY(!cancelled.ok());
        QVERIFY(cancelled.error().message.ends_with("cancelled"));

        // A stop requested while the load runs (from its first progress report, well before the
        // end) ends it as cancelled.
        const StopToken later;
        std::vector<int> before;
        ProgressReporter reporter(
            [&](int permille) {
                before.push_back(permille);
                later.requestStop();
            },
            std::chrono::milliseconds(0));
        const auto stopped = loadTrace(path, {}, reporter, later);
        QVERIFY(!stopped.ok());
        QVERIFY(stopped.error().message.ends_with("cancelled"));
        QVERIFY(!before.empty());
        QVERIFY2(before.front() < 1000, qPrintable(QString::number(before.front())));
    }

    // Worker threads read their chunks of a mapped file with readAt: the file's own bytes at
    // any offset, short at its end, whatever was read or patched through the mapping.
    void mappedFilesReadAtAnyOffset()
    {
        QTemporaryDir dir;
        std::string text;
        for (int i = 0; text.size() < 300000; ++i)
            text += std::to_string(i * 7919 % 10007) + ',';
        auto input = ByteInput::open(writeFile(dir, "t.json", text));
        QVERIFY(input.ok());
        auto &plain = *input.value();
        char *mapped = plain.map(64);
        QVERIFY(mapped);
        mapped[5] = '#'; // the mapping is private: the file keeps its byte
        std::string got(70000, '\0');
        for (const std::size_t offset : {std::size_t(0), std::size_t(4095), std::size_t(123457)}) {
            QCOMPARE(plain.readAt(offset, got.data(), got.size()), got.size());
            QVERIFY(got == text.substr(offset, got.size()));
        }
        const auto tail = text.size() - 1000;
        QCOMPARE(plain.readAt(tail, got.data(), got.size()), std::size_t(1000));
        QVERIFY(got.compare(0, 1000, text, tail, 1000) == 0);
        QCOMPARE(plain.readAt(text.size(), got.data(), got.size()), std::size_t(0));

        // A gzip file neither maps nor reads at an offset: its chunks are copied.
        auto gzip = ByteInput::open(writeFile(dir, "t.json.gz", gzipText(text)));
        QVERIFY(gzip.ok());
        QVERIFY(!gzip.value()->map(64));
        QCOMPARE(gzip.value()->readAt(0, got.data(), got.size()), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestLoader)
#include "tst_loader.moc"
