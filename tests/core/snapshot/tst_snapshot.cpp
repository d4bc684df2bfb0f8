// CUDA allocator snapshots: the C++ reader's figures equal an independent reading in Python
// (scripts/read-snapshot.py, a restricted Unpickler) on snapshots scripts/make-snapshots.py makes
// with torch's structure; damaged and malicious pickles are clear errors; reading can be cancelled.
#include <QTest>

#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "core/snapshot/segmentsat.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace pyrometer;
using namespace pyrometer::snapshot;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = PYROMETER_TEST_SNAPSHOTS_DIR;

nlohmann::json expected(const std::string &name)
{
    std::ifstream in(kDir / (name + ".expected.json"));
    return nlohmann::json::parse(in);
}

std::shared_ptr<const Snapshot> load(const std::string &name)
{
    auto result = loadSnapshot(kDir / name);
    if (!result)
        qFatal("%s", result.error().message.c_str());
    return result.value();
}

// A pickle written opcode by opcode (protocol 4 framing left out, as protocol 2 writes).
struct PickleBytes {
    std::string bytes = std::string("\x80\x04", 2);
    PickleBytes &op(char c)
    {
        bytes += c;
        return *this;
    }
    PickleBytes &str(const std::string &s)
    {
        bytes += char(0x8c);
        bytes += char(s.size());
        bytes += s;
        return *this;
    }
    PickleBytes &int32(std::int32_t v)
    {
        bytes += 'J';
        for (int i = 0; i < 4; ++i)
            bytes += char((std::uint32_t(v) >> (8 * i)) & 0xFF);
        return *this;
    }
    std::string done() { return bytes + '.'; }
};

// {"device_traces": [[N alloc events]], "segments": []}
std::string manyEvents(int n)
{
    PickleBytes p;
    p.op('}').op('(').str("segments").op(']').str("device_traces").op(']').op(']').op('(');
    for (int i = 0; i < n; ++i)
        p.op('}').op('(').str("action").str("alloc").str("addr").int32(i * 512).str("size").int32(512).op('u');
    p.op('e').op('a').op('u');
    return p.done();
}

} // namespace

class TestSnapshot : public QObject {
    Q_OBJECT

private slots:
    void figuresEqualThePythonReading_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("protocol");
        QTest::addRow("protocol 2") << "basic_p2.pickle" << 2;
        QTest::addRow("protocol 4") << "basic_p4.pickle" << 4;
        QTest::addRow("protocol 5") << "basic_p5.pickle" << 5;
        QTest::addRow("gzip") << "basic_p4.pickle.gz" << 4;
        QTest::addRow("oom") << "oom.pickle" << 4;
        QTest::addRow("oom on one stream, cached on another") << "stream_oom.pickle" << 4;
        QTest::addRow("expandable segments") << "expandable.pickle" << 4;
        QTest::addRow("legacy") << "legacy.pickle" << 2;
    }
    void figuresEqualThePythonReading()
    {
        QFETCH(QString, name);
        QFETCH(int, protocol);
        const auto s = load(name.toStdString());
        const auto want = expected(name.toStdString());
        QCOMPARE(s->protocol, protocol);

        const auto totals = segmentTotals(*s);
        QCOMPARE(totals.segments, want["segments"].get<std::size_t>());
        QCOMPARE(totals.blocks, want["blocks"].get<std::size_t>());
        QCOMPARE(totals.reservedBytes, want["reserved_bytes"].get<std::int64_t>());
        QCOMPARE(totals.allocatedBytes, want["allocated_bytes"].get<std::int64_t>());
        QCOMPARE(totals.requestedBytes, want["requested_bytes"].get<std::int64_t>());
        QCOMPARE(totals.activeBytes, want["active_bytes"].get<std::int64_t>());
        QCOMPARE(totals.freeBytes, want["free_bytes"].get<std::int64_t>());
        QCOMPARE(totals.largestFreeBlock, want["largest_free_block"].get<std::int64_t>());
        QCOMPARE(s->events.count(), want["events"].get<std::size_t>());

        const auto devices = replay(*s);
        QCOMPARE(devices.size(), want["devices"].size());
        for (std::size_t d = 0; d < devices.size(); ++d) {
            const auto &got = devices[d];
            const auto &w = want["devices"][d];
            QCOMPARE(got.events.size(), w["events"].get<std::size_t>());
            QCOMPARE(got.activeAtStart, w["active_bytes_at_start"].get<std::int64_t>());
            QCOMPARE(got.activeAtTraceEnd, w["active_bytes_at_trace_end"].get<std::int64_t>());
            QCOMPARE(got.peakActive, w["peak_active_bytes"].get<std::int64_t>());
            QCOMPARE(got.peakPosition, w["peak_event"].get<std::int64_t>());
            // What was live at the peak, by stack: the same groups, bytes and blocks, in order.
            const auto live = liveAt(*s, got, got.peakPosition);
            std::int64_t liveBytes = 0;
            for (const auto &b : live)
                liveBytes += b.size;
            QCOMPARE(liveBytes, got.peakActive); // the live set and the curve agree
            const auto groups = groupLive(*s, got, live, GroupBy::Stack);
            const auto &top = w["top_at_peak"];
            QVERIFY(!top.empty());
            for (std::size_t i = 0; i < top.size(); ++i) {
                QCOMPARE(groups[i].key, top[i]["key"].get<std::string>());
                QCOMPARE(groups[i].bytes, top[i]["bytes"].get<std::int64_t>());
                QCOMPARE(groups[i].blocks, top[i]["blocks"].get<std::size_t>());
            }
        }
        const auto ooms = oomReports(*s, devices);
        QCOMPARE(ooms.size(), want["ooms"].size());
        for (std::size_t i = 0; i < ooms.size(); ++i) {
            QCOMPARE(ooms[i].requestedBytes, want["ooms"][i]["requested_bytes"].get<std::int64_t>());
            QCOMPARE(ooms[i].deviceFreeBytes, want["ooms"][i]["device_free_bytes"].get<std::int64_t>());
            QCOMPARE(ooms[i].activeBytes, want["ooms"][i]["active_bytes"].get<std::int64_t>());
            QCOMPARE(std::int64_t(ooms[i].position), want["ooms"][i]["event"].get<std::int64_t>());
        }
    }

    void anOomSaysWhy()
    {
        const auto s = load("oom.pickle");
        const auto devices = replay(*s);
        const auto ooms = oomReports(*s, devices);
        QCOMPARE(ooms.size(), std::size_t(1));
        QCOMPARE(ooms[0].requestedBytes, std::int64_t(24) << 20);
        QVERIFY(ooms[0].segmentsAtOom);
        // 30 MiB lay free in pieces of 2 MiB at most: the request could not fit in one.
        QVERIFY(ooms[0].cachedFreeBytes >= ooms[0].requestedBytes);
        QVERIFY(ooms[0].largestFreeBlock < ooms[0].requestedBytes);
        QVERIFY2(ooms[0].verdict.rfind("fragmentation", 0) == 0, ooms[0].verdict.c_str());
        std::string error;
        QCOMPARE(resolveInstant(*s, devices[0], "oom", error),
                 std::optional<std::int64_t>(std::int64_t(ooms[0].position)));
        QVERIFY(!resolveInstant(*s, devices[0], "oom:2", error));
        QVERIFY2(error.find("1 OOM") != std::string::npos, error.c_str());
        // One stream: all the free bytes were its own.
        QCOMPARE(ooms[0].streams, std::size_t(1));
        QCOMPARE(ooms[0].usableFreeBytes, ooms[0].cachedFreeBytes);
        QVERIFY(ooms[0].verdict.find("stream") == std::string::npos);
    }

    // 36 MiB lay free beside a live block in a side stream's segment: enough bytes, and one piece
    // large enough, but not where the main stream's request could take them. Not fragmentation,
    // and not the device out of memory with nothing cached.
    void anOomWithMemoryCachedForAnotherStream()
    {
        const auto s = load("stream_oom.pickle");
        const auto devices = replay(*s);
        const auto ooms = oomReports(*s, devices);
        QCOMPARE(ooms.size(), std::size_t(1));
        const auto &o = ooms[0];
        QCOMPARE(o.stream, std::uint64_t(0));
        QCOMPARE(o.streams, std::size_t(2));
        QVERIFY(o.largestFreeBlock >= std::int64_t(36) << 20);
        QVERIFY(o.cachedFreeBytes >= o.requestedBytes);
        QVERIFY2(o.usableFreeBytes < o.requestedBytes, std::to_string(o.usableFreeBytes).c_str());
        QCOMPARE(o.cachedFreeBytes - o.usableFreeBytes, std::int64_t(36) << 20);
        QVERIFY2(o.verdict.rfind("cached for others", 0) == 0, o.verdict.c_str());
        QVERIFY2(o.verdict.find("on stream 0") != std::string::npos, o.verdict.c_str());
        // The allocator at the OOM puts the side stream's segment on its stream.
        const auto then = segmentsAt(*s, devices[0], std::int64_t(o.position));
        QVERIFY(std::any_of(then.segments.begin(), then.segments.end(), [](const SegmentAt &seg) {
            return seg.stream == 7 && seg.size == std::int64_t(40) << 20 && seg.allocated == std::int64_t(4) << 20;
        }));
    }

    void theAllocatorAtAnyInstant_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("segments freed") << "basic_p4.pickle";
        QTest::addRow("expandable") << "expandable.pickle";
        QTest::addRow("oom") << "oom.pickle";
        QTest::addRow("legacy") << "legacy.pickle";
    }
    void theAllocatorAtAnyInstant()
    {
        QFETCH(QString, name);
        const auto s = load(name.toStdString());
        const auto devices = replay(*s);
        for (const auto &d : devices) {
            // At every instant the segments then hold what the reserved curve says, and the live
            // blocks all lie in them.
            for (std::int64_t p = -1; p < std::int64_t(d.events.size()); p += 7) {
                const auto then = segmentsAt(*s, d, p);
                QCOMPARE(then.reservedBytes, p < 0 ? d.reservedAtStart : d.reserved[std::size_t(p)]);
                QCOMPARE(then.allocatedBytes, p < 0 ? d.activeAtStart : d.active[std::size_t(p)]);
                QCOMPARE(then.unplacedBytes, std::int64_t(0));
                QVERIFY(then.largestFree <= then.freeBytes);
            }
            // At the end, the snapshot's own segments and blocks say the same.
            const auto end = segmentsAt(*s, d, std::int64_t(d.events.size()) - 1);
            const auto totals = segmentTotals(*s, d.device);
            QCOMPARE(end.segments.size(), totals.segments);
            QCOMPARE(end.freeBytes, totals.freeBytes);
            QCOMPARE(end.largestFree, totals.largestFreeBlock);
        }
    }

    void expandableSegmentsMapAndUnmap()
    {
        const auto s = load("expandable.pickle");
        QVERIFY(!s->segments.empty());
        QVERIFY(std::all_of(s->segments.begin(), s->segments.end(), [](const Segment &seg) { return seg.expandable; }));
        const auto &a = s->events.action;
        QVERIFY(std::count(a.begin(), a.end(), Action::SegmentMap) > 0);
        QVERIFY(std::count(a.begin(), a.end(), Action::SegmentUnmap) > 0);
        QCOMPARE(std::count(a.begin(), a.end(), Action::SegmentAlloc), 0);
        // Reserved memory follows the maps and unmaps and ends at the segments' total.
        const auto devices = replay(*s);
        QCOMPARE(devices[0].reserved.back(), segmentTotals(*s).reservedBytes);
        QVERIFY(*std::max_element(devices[0].reserved.begin(), devices[0].reserved.end()) > devices[0].reserved.back());
    }

    void legacySnapshotsHaveNoTimes()
    {
        const auto s = load("legacy.pickle");
        QVERIFY(!s->hasTimes);
        QVERIFY(s->settings.empty());
        QVERIFY(s->events.count() > 0);
        const auto devices = replay(*s);
        std::string error;
        QVERIFY(!resolveInstant(*s, devices[0], "250ms", error));
        QVERIFY2(error.find("#N") != std::string::npos, error.c_str());
        QCOMPARE(resolveInstant(*s, devices[0], "#3", error), std::optional<std::int64_t>(3));
        // Older segments lack the sums: they are the blocks'.
        QVERIFY(segmentTotals(*s).allocatedBytes > 0);
    }

    void instantsByTime()
    {
        const auto s = load("basic_p4.pickle");
        const auto devices = replay(*s);
        const auto &d = devices[0];
        std::string error;
        QCOMPARE(resolveInstant(*s, d, "peak", error), std::optional<std::int64_t>(d.peakPosition));
        QCOMPARE(resolveInstant(*s, d, "start", error), std::optional<std::int64_t>(-1));
        QCOMPARE(resolveInstant(*s, d, "end", error), std::optional<std::int64_t>(std::int64_t(d.events.size()) - 1));
        // Events are 37 us apart: 100 us after the first is after the third (0, 37, 74).
        QCOMPARE(resolveInstant(*s, d, "100us", error), std::optional<std::int64_t>(2));
        QCOMPARE(resolveInstant(*s, d, "0.1ms", error), std::optional<std::int64_t>(2));
        QVERIFY(!resolveInstant(*s, d, "soon", error));
        QVERIFY(!resolveInstant(*s, d, "oom", error));
        QVERIFY2(error.find("no OOM") != std::string::npos, error.c_str());
    }

    void sameCallerLabelsAreTold()
    {
        // Two stacks end in the same torch frame from the same user frame's name: labels differ.
        const auto s = load("basic_p4.pickle");
        const auto devices = replay(*s);
        const auto groups = groupLive(*s, devices[0], liveAt(*s, devices[0], devices[0].peakPosition), GroupBy::Stack);
        std::set<std::string> labels;
        for (const auto &g : groups)
            QVERIFY2(labels.insert(g.label).second, g.label.c_str());
        const auto linear =
            std::find_if(groups.begin(), groups.end(), [](const LiveGroup &g) { return g.label.find("linear") == 0; });
        QVERIFY(linear != groups.end());
        QCOMPARE(linear->label, std::string("linear linear.py:116 from forward model.py:40"));
    }

    void groupsByContextAndAnnotation()
    {
        const auto s = load("basic_p4.pickle");
        const auto devices = replay(*s);
        const auto live = liveAt(*s, devices[0], devices[0].peakPosition);
        const auto contexts = groupLive(*s, devices[0], live, GroupBy::Context);
        QVERIFY(std::any_of(contexts.begin(), contexts.end(),
                            [](const LiveGroup &g) { return g.key == "compiled_region_0"; }));
        const auto notes = groupLive(*s, devices[0], live, GroupBy::Annotation);
        // user_metadata where an allocation has one, else the external annotation open then.
        QVERIFY(
            std::any_of(notes.begin(), notes.end(), [](const LiveGroup &g) { return g.key.rfind("step", 0) == 0; }));
        const auto atStart = groupLive(*s, devices[0], liveAt(*s, devices[0], 20), GroupBy::Annotation);
        QVERIFY(std::any_of(atStart.begin(), atStart.end(), [](const LiveGroup &g) { return g.key == "forward"; }));
        std::int64_t a = 0, b = 0;
        for (const auto &g : contexts)
            a += g.bytes;
        for (const auto &g : notes)
            b += g.bytes;
        QCOMPARE(a, devices[0].peakActive);
        QCOMPARE(b, devices[0].peakActive);
    }

    void diffShowsWhatGrew()
    {
        const auto base = load("basic_p4.pickle");
        const auto other = load("oom.pickle");
        const auto db = replay(*base), dother = replay(*other);
        const auto g1 = groupLive(*base, db[0], liveAt(*base, db[0], db[0].peakPosition), GroupBy::Stack);
        const auto g2 = groupLive(*other, dother[0], liveAt(*other, dother[0], dother[0].peakPosition), GroupBy::Stack);
        const auto deltas = diffGroups(g1, g2);
        QVERIFY(!deltas.empty());
        std::int64_t sum = 0;
        for (const auto &d : deltas)
            sum += d.delta();
        QCOMPARE(sum, dother[0].peakActive - db[0].peakActive);
        QVERIFY(deltas.front().delta() >= deltas.back().delta());
    }

    void badFilesSayWhy_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("words");
        QTest::addRow("truncated") << "truncated.pickle"
                                   << "truncated";
        QTest::addRow("truncated gzip") << "truncated.pickle.gz"
                                        << "truncated";
        QTest::addRow("a class") << "class_ref.pickle"
                                 << "never runs";
        QTest::addRow("a huge length") << "huge_length.pickle"
                                       << "more than the file holds";
        QTest::addRow("a negative size") << "negative_size.pickle"
                                         << "is not a size in bytes";
        QTest::addRow("an impossible size") << "huge_size.pickle"
                                            << "is not a size in bytes";
        QTest::addRow("other data") << "not_a_snapshot.pickle"
                                    << "not a CUDA allocator snapshot";
        QTest::addRow("JSON") << "not_a_pickle.pickle"
                              << "is this a pickle";
        QTest::addRow("missing") << "missing.pickle"
                                 << "cannot open";
    }
    void badFilesSayWhy()
    {
        QFETCH(QString, name);
        QFETCH(QString, words);
        const auto path = kDir / name.toStdString();
        const auto result = loadSnapshot(path);
        QVERIFY(!result);
        const auto &message = result.error().message;
        QVERIFY2(message.rfind(path.string(), 0) == 0, message.c_str());
        QVERIFY2(message.find(words.toStdString()) != std::string::npos, message.c_str());
        QVERIFY(message.find('\n') == std::string::npos);
    }

    void craftedPicklesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("words");
        QTest::addRow("GLOBAL") << QByteArray("\x80\x02"
                                              "cos\nsystem\n"
                                              "(S'ls'\ntR.",
                                              22)
                                << "GLOBAL (os system)";
        QTest::addRow("REDUCE") << QByteArray("\x80\x02"
                                              "N)R.",
                                              6)
                                << "REDUCE";
        QTest::addRow("protocol 6") << QByteArray("\x80\x06}.", 4) << "newer than 5";
        QTest::addRow("memo never stored") << QByteArray("\x80\x02h\x05.", 5) << "never stored";
        QTest::addRow("empty stack") << QByteArray("\x80\x02"
                                                   "a.",
                                                   4)
                                     << "empty stack";
        QTest::addRow("stray SETITEMS") << QByteArray("\x80\x02"
                                                      "(u.",
                                                      5)
                                        << "no dict";
        QTest::addRow("odd dict") << QByteArray("\x80\x02"
                                                "}(K\x01u.",
                                                8)
                                  << "key and no value";
        QTest::addRow("protocol 0") << QByteArray("I12\n.", 5) << "protocol 0 or 1";
        QTest::addRow("bad UTF-8") << QByteArray("\x80\x04\x8c\x02\xff\xfe.", 7) << "UTF-8";
        QTest::addRow("no STOP") << QByteArray("\x80\x04}", 3) << "truncated";
        QTest::addRow("memo far away") << QByteArray("\x80\x02}r\xff\xff\xff\x7f.", 9) << "far past";
        QTest::addRow("frames of strings") << QByteArray(PickleBytes()
                                                             .op('}')
                                                             .op('(')
                                                             .str("device_traces")
                                                             .op(']')
                                                             .op(']')
                                                             .op('}')
                                                             .op('(')
                                                             .str("action")
                                                             .str("alloc")
                                                             .str("frames")
                                                             .op(']')
                                                             .str("x")
                                                             .op('a')
                                                             .op('u')
                                                             .op('a')
                                                             .op('a')
                                                             .op('u')
                                                             .done()
                                                             .c_str())
                                           << "a frame that is not a dict";
    }
    void craftedPicklesAreRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, words);
        const auto result =
            readSnapshot(std::string_view(bytes.constData(), std::size_t(bytes.size())), "crafted.pickle");
        QVERIFY(!result);
        QVERIFY2(result.error().message.find(words.toStdString()) != std::string::npos, result.error().message.c_str());
        QVERIFY(result.error().message.rfind("crafted.pickle: ", 0) == 0);
    }

    void handWrittenEventsAreRead()
    {
        const auto bytes = manyEvents(1000);
        const auto result = readSnapshot(bytes, "events.pickle");
        QVERIFY2(result, result ? "" : result.error().message.c_str());
        const auto &s = *result.value();
        QCOMPARE(s.events.count(), std::size_t(1000));
        QCOMPARE(s.events.addr[999], std::uint64_t(999 * 512));
        QVERIFY(!s.hasTimes);
        const auto devices = replay(s);
        QCOMPARE(devices[0].peakActive, std::int64_t(1000 * 512));
    }

    void readingCanBeCancelled()
    {
        const auto path = fs::path(QDir::tempPath().toStdString()) / "pyrometer-cancel.pickle";
        {
            std::ofstream out(path, std::ios::binary);
            out << manyEvents(300000);
        }
        StopToken stop;
        int reports = 0;
        ProgressReporter progress(
            [&](int) {
                ++reports;
                stop.requestStop();
            },
            std::chrono::milliseconds(0));
        const auto result = loadSnapshot(path, progress, stop);
        fs::remove(path);
        QVERIFY(!result);
        QVERIFY2(result.error().message.find("cancelled") != std::string::npos, result.error().message.c_str());
        QVERIFY(reports >= 1);
    }

    void looksLikeASnapshot()
    {
        QVERIFY(looksLikeSnapshot(kDir / "basic_p4.pickle"));
        QVERIFY(looksLikeSnapshot(kDir / "basic_p4.pickle.gz"));
        QVERIFY(!looksLikeSnapshot(kDir / "not_a_pickle.pickle"));
    }
};

QTEST_GUILESS_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
