// Chunks parsed on worker threads and merged give the same Trace as one pass on one thread.
// Small chunks put many boundaries into small files: B/E pairs, flows, counters and metadata
// across chunks, minified text (no blank to patch), and text that fools the boundary guess.
#include <QtTest>

#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers, nor raw strings with quotes
#include "core/trace/lanes.h"
#include "paralleltestutil.h"
#endif

using namespace pyrometer;
using namespace pyrometer::trace;
using namespace pyrometer::trace::testing;

class TestParallel : public QObject {
    Q_OBJECT
private slots:
    void sameTraceAsOnePass_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("text"); // written to a file when set
        QTest::addColumn<bool>("gzip");
        QTest::addColumn<bool>("partial");
        QTest::addRow("mixed") << "" << QString::fromStdString(mixedText(false)) << false << false;
        QTest::addRow("mixed gzip") << "" << QString::fromStdString(mixedText(false)) << true << false;
        QTest::addRow("mixed long") << "" << QString::fromStdString(mixedText(false, 12000)) << false << false;
        QTest::addRow("mixed minified") << "" << QString::fromStdString(mixedText(true)) << false << false;
        QTest::addRow("tricky") << "" << QString::fromStdString(trickyText()) << false << false;
        auto truncated = mixedText(false);
        truncated.resize(truncated.size() * 2 / 3);
        QTest::addRow("truncated partial") << "" << QString::fromStdString(truncated) << false << true;
        QTest::addRow("truncated") << "" << QString::fromStdString(truncated) << false << false;
        auto broken = mixedText(false);
        broken[broken.size() / 2] = '@';
        QTest::addRow("broken partial") << "" << QString::fromStdString(broken) << false << true;
        QTest::addRow("broken") << "" << QString::fromStdString(broken) << false << false;
        for (const auto *name : {"benchmark_result_2869224_1695835535_trace.json.gz",
                                 "gaunernst_bert-small-uncased__1016001.json.gz", "before_fix_trace.json",
                                 "debian_legacy_linear.json",
                                 "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"})
            QTest::addRow("%s", name) << name << "" << false << false;
    }
    void sameTraceAsOnePass()
    {
        QFETCH(QString, file);
        QFETCH(QString, text);
        QFETCH(bool, gzip);
        QFETCH(bool, partial);
        QTemporaryDir dir;
        fs::path path;
        if (file.isEmpty()) {
            const auto data = gzip ? gzipText(text.toStdString()) : text.toStdString();
            path = writeFile(dir, gzip ? "t.json.gz" : "t.json", data);
        } else {
            path = fixture(file.toStdString());
            QVERIFY2(fs::exists(path), qPrintable("missing fixture " + QString::fromStdString(path.string())));
        }
        const auto expected = loadDump(path, 0, 0, partial);
        QVERIFY(expected.size() > 100 || expected.starts_with("error"));
        // Fixtures are larger: fewer, larger chunks keep the test quick.
        const std::vector<std::size_t> chunks = file.isEmpty() ? std::vector<std::size_t>{1024, 5000}
                                                               : std::vector<std::size_t>{20000};
        for (const int threads : {1, 2, 3}) {
            for (const std::size_t chunk : chunks) {
                const auto got = loadDump(path, threads, chunk, partial);
                if (got != expected) {
                    // Show the first difference.
                    std::size_t at = 0;
                    while (at < got.size() && at < expected.size() && got[at] == expected[at])
                        ++at;
                    const auto from = at > 200 ? at - 200 : 0;
                    qWarning("threads %d chunk %zu: differs at %zu:\nexpected ...%s\ngot ...%s", threads, chunk, at,
                             expected.substr(from, 400).c_str(), got.substr(from, 400).c_str());
                }
                QVERIFY(got == expected);
            }
        }
    }

    void hugeTrackSortsInBlocks()
    {
        // More events than one sort block (2^18): sorted block by block, then merged; stable.
        Track track;
        const std::uint32_t n = 700000;
        std::uint64_t seed = 12345;
        for (std::uint32_t i = 0; i < n; ++i) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            track.start.push_back(static_cast<std::int64_t>((seed >> 33) % 50000));
            track.duration.push_back(static_cast<std::int64_t>((seed >> 20) % 3));
            track.eventName.push_back(StringId(i));
            track.category.push_back(StringId(0));
            track.kind.push_back(SliceKind::Complete);
            track.args.push_back(Track::kNoArgs);
            track.sourceOffset.push_back(i);
        }
        Track copy = track;
        const StopToken stop;
        stop.requestStop();
        QVERIFY(!sortAndNest(copy, stop));

        sortAndNest(track);
        QCOMPARE(track.size(), std::size_t(n));
        for (std::uint32_t i = 1; i < n; ++i) {
            const bool before = track.start[i - 1] < track.start[i]
                || (track.start[i - 1] == track.start[i]
                    && (track.duration[i - 1] > track.duration[i]
                        || (track.duration[i - 1] == track.duration[i]
                            && track.sourceOffset[i - 1] < track.sourceOffset[i])));
            if (!before)
                QFAIL(qPrintable(QString("out of order at %1").arg(i)));
            QCOMPARE(track.eventName[i].value, std::uint32_t(track.sourceOffset[i]));
        }
    }
};

QTEST_GUILESS_MAIN(TestParallel)
#include "tst_parallel.moc"
