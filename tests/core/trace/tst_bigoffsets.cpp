// Offsets past 4 GiB without a multi-GB file on disk: a gzip stream that inflates to more than
// 4 GiB (runs of blanks between the events compress ~300:1 and inflate fast), and a sparse file.
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/trace/eventjson.h"
#include "core/trace/loader.h"
#endif

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <sys/stat.h>
#include <zlib.h>

using namespace pyrometer;
using namespace pyrometer::trace;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t k4GiB = std::uint64_t(1) << 32;

// Raw deflate of text as a stream of its own, ended by a full flush (byte-aligned, no history
// kept) or, for the last piece, by the final block. Pieces made so can be laid end to end, the
// same piece as often as wanted, and still be one valid deflate stream.
std::string deflatePiece(std::string_view text, bool last)
{
    z_stream stream{};
    deflateInit2(&stream, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&stream, static_cast<uLong>(text.size())) + 64, '\0');
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
    stream.avail_in = static_cast<uInt>(text.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    deflate(&stream, last ? Z_FINISH : Z_FULL_FLUSH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

void putLittleEndian32(std::ostream &out, std::uint64_t value)
{
    for (int i = 0; i < 4; ++i)
        out.put(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// A trace of `copies` identical events, each followed by a comma and 1 MiB of blanks, then one
// last event, gzipped as a single member whose uncompressed size passes 4 GiB.
struct BigGzip {
    std::string head = R"({"traceEvents": [)";
    std::string unit;
    std::string last = R"({"ph": "X", "name": "last", "ts": 2, "dur": 1, "pid": 1, "tid": 1}]})";
    std::uint64_t copies = 0;

    BigGzip()
    {
        unit = R"({"ph": "X", "name": "a", "ts": 1, "dur": 1, "pid": 1, "tid": 1},)";
        // Blanks in a pattern with a period of 64 bytes: deflate copies them from 64 bytes back,
        // which inflates several times faster than a run of one byte.
        std::string pattern;
        for (unsigned i = 0, x = 1; i < 64; ++i, x = x * 1103515245u + 12345u)
            pattern += " \n\t\r"[(x >> 16) & 3];
        for (int i = 0; i < (1 << 20) / 64; ++i)
            unit += pattern;
        copies = (k4GiB + (64u << 20)) / unit.size() + 1;
    }

    std::uint64_t jsonBytes() const { return head.size() + copies * unit.size() + last.size(); }
    std::uint64_t lastOffset() const { return head.size() + copies * unit.size(); }

    void write(const fs::path &path) const
    {
        std::ofstream out(path, std::ios::binary);
        const char header[] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, 3};
        out.write(header, sizeof header);
        const auto write = [&](const std::string &bytes) {
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        };
        write(deflatePiece(head, false));
        const auto unitPiece = deflatePiece(unit, false);
        for (std::uint64_t k = 0; k < copies; ++k)
            write(unitPiece);
        write(deflatePiece(last, true));
        // The trailer: CRC-32 of all the text, and its size modulo 2^32.
        auto crc = crc32(0, reinterpret_cast<const Bytef *>(head.data()), static_cast<uInt>(head.size()));
        const auto unitCrc = crc32(0, reinterpret_cast<const Bytef *>(unit.data()), static_cast<uInt>(unit.size()));
        for (std::uint64_t k = 0; k < copies; ++k)
            crc = crc32_combine(crc, unitCrc, static_cast<z_off_t>(unit.size()));
        crc = crc32_combine(crc, crc32(0, reinterpret_cast<const Bytef *>(last.data()), static_cast<uInt>(last.size())),
                            static_cast<z_off_t>(last.size()));
        putLittleEndian32(out, crc);
        putLittleEndian32(out, jsonBytes());
    }
};

} // namespace

class TestBigOffsets : public QObject {
    Q_OBJECT
private slots:
    void gzipPast4GiB_data()
    {
        QTest::addColumn<int>("threads");
        QTest::addRow("this thread") << 0;
        QTest::addRow("parser threads") << 2;
    }

    void gzipPast4GiB()
    {
        QFETCH(int, threads);
        QTemporaryDir dir;
        const auto path = fs::path(dir.path().toStdString()) / "big.json.gz";
        const BigGzip big;
        big.write(path);
        QVERIFY(big.jsonBytes() > k4GiB);

        LoadOptions options;
        options.parserThreads = threads;
        const auto result = loadTrace(path, options);
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        const Trace &trace = *result.value();
        QVERIFY(trace.gzipped);
        QCOMPARE(trace.info.jsonBytes, big.jsonBytes());
        QCOMPARE(trace.info.eventCount, big.copies + 1);
        QCOMPARE(trace.info.warningCount, 0u);
        QCOMPARE(trace.tracks.size(), std::size_t(1));
        const Track &track = trace.tracks[0];
        QCOMPARE(track.size(), big.copies + 1);
        // Equal events keep file order; the last one starts later.
        for (std::uint64_t k = 0; k < big.copies; ++k)
            QCOMPARE(track.sourceOffset[k], big.head.size() + k * big.unit.size());
        const EventIndex lastEvent(static_cast<std::uint32_t>(big.copies));
        QCOMPARE(trace.string(track.eventName[lastEvent.value]), std::string_view("last"));
        QCOMPARE(track.sourceOffset[lastEvent.value], big.lastOffset());
        QVERIFY(track.sourceOffset[lastEvent.value] > k4GiB);

        if (threads != 0)
            return; // re-reading once is enough
        // The event's JSON re-read from beyond 4 GiB of inflated text.
        const auto json = readEventJson(trace, track.id, lastEvent);
        QVERIFY2(json.ok(), json.ok() ? "" : json.error().message.c_str());
        QCOMPARE(json.value(), big.last.substr(0, big.last.size() - 2));
    }

    void plainOffsetPast4GiB()
    {
        // A sparse file: one event 4 GiB in, a hole before it.
        QTemporaryDir dir;
        const auto path = fs::path(dir.path().toStdString()) / "sparse.json";
        const std::uint64_t offset = k4GiB + 123;
        const std::string event = R"({"ph": "X", "name": "far", "ts": 1, "dur": 2, "args": {"x": [1, 2]}})";
        {
            std::ofstream out(path, std::ios::binary);
            out.seekp(static_cast<std::streamoff>(offset));
            out.write(event.data(), static_cast<std::streamsize>(event.size()));
            QVERIFY(out.good());
        }
        struct stat info {};
        QCOMPARE(::stat(path.c_str(), &info), 0);
        QCOMPARE(std::uint64_t(info.st_size), offset + event.size());
        if (std::uint64_t(info.st_blocks) * 512 > (64u << 20))
            QSKIP("the file system does not keep files sparse");

        const auto json = readJsonObjectAt(path, offset);
        QVERIFY2(json.ok(), json.ok() ? "" : json.error().message.c_str());
        QCOMPARE(json.value(), event);

        // Errors name the offset in full.
        const auto hole = readJsonObjectAt(path, offset - 1);
        QVERIFY(!hole.ok());
        const auto &holeMessage = hole.error().message;
        QVERIFY2(holeMessage.ends_with(": no event at byte " + std::to_string(offset - 1) + " (the file changed?)"),
                 holeMessage.c_str());
        const auto end = offset + event.size();
        const auto beyond = readJsonObjectAt(path, end + 1);
        QVERIFY(!beyond.ok());
        const auto &beyondMessage = beyond.error().message;
        QVERIFY2(beyondMessage.ends_with(": the file ends before byte " + std::to_string(end + 1)),
                 beyondMessage.c_str());
    }
};

QTEST_GUILESS_MAIN(TestBigOffsets)
#include "tst_bigoffsets.moc"
