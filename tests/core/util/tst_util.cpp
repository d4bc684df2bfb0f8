#include "core/util/cpufeatures.h"
#include "core/util/factoryname.h"
#include "core/util/format.h"
#include "core/util/heap.h"
#include "core/util/progress.h"
#include "core/util/result.h"
#include "core/util/strongid.h"
#include "core/util/twothreads.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <cstdint>
#include <memory>
#include <thread>
#include <type_traits>

using namespace pyrometer;

namespace {

// The VmFlags of the mapping of /proc/self/smaps that holds address ("" when none does).
QByteArray vmFlagsAt(const void *address)
{
    QFile smaps("/proc/self/smaps");
    if (!smaps.open(QIODevice::ReadOnly))
        return {};
    const auto where = reinterpret_cast<std::uintptr_t>(address);
    bool inside = false;
    for (const QByteArray &line : smaps.readAll().split('\n')) {
        const auto dash = line.indexOf('-');
        const auto space = line.indexOf(' ');
        if (dash > 0 && space > dash && !line.startsWith("VmFlags")) {
            bool ok1 = false, ok2 = false;
            const auto from = line.left(dash).toULongLong(&ok1, 16);
            const auto to = line.mid(dash + 1, space - dash - 1).toULongLong(&ok2, 16);
            if (ok1 && ok2) {
                inside = where >= from && where < to;
                continue;
            }
        }
        if (inside && line.startsWith("VmFlags:"))
            return line.mid(8).trimmed();
    }
    return {};
}

} // namespace

class TestUtil : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // "dir/model.py:build" is a file and a function; anything else names no factory.
    void factoryNames()
    {
        const auto factory = parseFactoryName("models/net.py:build_small");
        QVERIFY(factory);
        QCOMPARE(factory->file, std::filesystem::path("models/net.py"));
        QCOMPARE(factory->function, std::string("build_small"));
        // The last ".py:" splits: a folder may hold one.
        const auto nested = parseFactoryName("/srv/a.py:b/net.py:make");
        QVERIFY(nested);
        QCOMPARE(nested->file, std::filesystem::path("/srv/a.py:b/net.py"));
        QCOMPARE(nested->function, std::string("make"));
        QVERIFY(!parseFactoryName("models/net.py:"));
        QVERIFY(!parseFactoryName("models/net.py"));
        QVERIFY(!parseFactoryName("resnet.pt2"));
    }

    void formatDuration_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("expected");
        QTest::addRow("zero") << qint64(0) << "0 ns";
        QTest::addRow("ns") << qint64(812) << "812 ns";
        QTest::addRow("us") << qint64(12'345) << "12.3 \u00b5s";
        QTest::addRow("us rounds up to ms") << qint64(999'960) << "1.00 ms";
        QTest::addRow("ms") << qint64(4'560'000) << "4.56 ms";
        QTest::addRow("s") << qint64(123'400'000'000) << "123 s";
        QTest::addRow("negative") << qint64(-2'500'000) << "-2.50 ms";
    }
    void formatDuration()
    {
        QFETCH(qint64, ns);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(pyrometer::formatDuration(ns)), expected);
    }

    void formatDurationInAFixedUnit_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<int>("unit");
        QTest::addColumn<QString>("expected");
        QTest::addRow("auto") << qint64(12'345) << int(TimeUnit::Auto) << "12.3 \u00b5s";
        QTest::addRow("ns") << qint64(4'560'000) << int(TimeUnit::Nanoseconds) << "4560000 ns";
        QTest::addRow("us") << qint64(4'560'000) << int(TimeUnit::Microseconds) << "4560 \u00b5s";
        QTest::addRow("ms small") << qint64(12'345) << int(TimeUnit::Milliseconds) << "0.0123 ms";
        QTest::addRow("ms tiny stops at ns") << qint64(3) << int(TimeUnit::Milliseconds) << "0.000003 ms";
        QTest::addRow("ms large") << qint64(123'400'000'000) << int(TimeUnit::Milliseconds) << "123400 ms";
        QTest::addRow("s") << qint64(2'500'000) << int(TimeUnit::Seconds) << "0.00250 s";
        QTest::addRow("zero") << qint64(0) << int(TimeUnit::Microseconds) << "0.00 \u00b5s";
    }
    void formatDurationInAFixedUnit()
    {
        QFETCH(qint64, ns);
        QFETCH(int, unit);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(pyrometer::formatDuration(ns, TimeUnit(unit))), expected);
        // Names round-trip, for settings and session files.
        QVERIFY(timeUnitFromName(timeUnitName(TimeUnit(unit))) == TimeUnit(unit));
    }
    void unknownTimeUnitNameIsRefused() { QVERIFY(!timeUnitFromName("fortnights")); }

    void formatBytes_data()
    {
        QTest::addColumn<quint64>("bytes");
        QTest::addColumn<QString>("expected");
        QTest::addRow("bytes") << quint64(512) << "512 B";
        QTest::addRow("KiB") << quint64(1536) << "1.50 KiB";
        QTest::addRow("MiB") << quint64(230) * 1024 * 1024 << "230 MiB";
        QTest::addRow("rounds to next unit") << quint64(1023) * 1024 + 1000 << "1.00 MiB";
        QTest::addRow("GiB") << quint64(4'509'715'660) << "4.20 GiB";
    }
    void formatBytes()
    {
        QFETCH(quint64, bytes);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(pyrometer::formatBytes(bytes)), expected);
    }

    void formatCount()
    {
        QCOMPARE(pyrometer::formatCount(999), std::string("999"));
        QCOMPARE(pyrometer::formatCount(1234), std::string("1.23k"));
        QCOMPARE(pyrometer::formatCount(4'560'000), std::string("4.56M"));
    }

    void nativeBFloat16AgreesWithTheKernel()
    {
        // The kernel's own reading of CPUID, independent of ours.
        QFile cpuinfo(QStringLiteral("/proc/cpuinfo"));
        QVERIFY(cpuinfo.open(QIODevice::ReadOnly));
        const auto flags = QString::fromLatin1(cpuinfo.readAll()).split(QRegularExpression(QStringLiteral("\\s+")));
        const bool kernelSays = flags.contains(QStringLiteral("avx512_bf16")) || flags.contains(QStringLiteral("amx_bf16"));
        QCOMPARE(cpuHasNativeBFloat16(), kernelSays);
    }

    void largeBlocksAskForHugePages()
    {
        if (!QFile::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
            QSKIP("this kernel has no transparent huge pages");
        // Columns of a large trace: operator new of the program marks their whole 2 MiB pages.
        const std::size_t bytes = std::size_t(16) << 20;
        const std::unique_ptr<char[]> large(new char[bytes]);
        const auto inside = (reinterpret_cast<std::uintptr_t>(large.get()) + (std::size_t(4) << 20)) & ~((std::size_t(2) << 20) - 1);
        const auto flags = vmFlagsAt(reinterpret_cast<const void *>(inside));
        QVERIFY2(!flags.isEmpty(), "the block is in no mapping of /proc/self/smaps");
        QVERIFY2(flags.split(' ').contains("hg"), flags.constData());
        // A small block shares its mapping with everything else on the heap: it is left alone.
        const std::unique_ptr<char[]> small(new char[4096]);
        QVERIFY(!vmFlagsAt(small.get()).split(' ').contains("hg"));
    }

    // Every index once; the odd ones on a second thread when asked, none when not; an
    // exception thrown on the second thread reaches the caller.
    void inTwoThreadsSharesTheWork()
    {
        const auto self = std::this_thread::get_id();
        for (const bool two : {false, true}) {
            std::vector<int> runs(9, 0);
            std::vector<std::thread::id> where(9);
            pyrometer::inTwoThreads(runs.size(), two, [&](std::size_t i) {
                ++runs[i];
                where[i] = std::this_thread::get_id();
            });
            for (std::size_t i = 0; i < runs.size(); ++i) {
                QCOMPARE(runs[i], 1);
                QCOMPARE(where[i] == self, !two || i % 2 == 0);
            }
        }
        bool thrown = false;
        try {
            pyrometer::inTwoThreads(2, true, [&](std::size_t i) {
                if (i == 1)
                    throw std::runtime_error("odd");
            });
        } catch (const std::runtime_error &error) {
            thrown = std::string(error.what()) == "odd";
        }
        QVERIFY(thrown);
    }

    void hugePageResourceGivesAlignedAdvisedBlocks()
    {
        if (!QFile::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
            QSKIP("this kernel has no transparent huge pages");
        // The timeline index's arena: blocks start at a 2 MiB boundary, in a mapping marked for
        // huge pages, hold what is written to them, and are unmapped when given back.
        auto *resource = pyrometer::hugePageResource();
        const std::size_t bytes = (std::size_t(3) << 20) + 123;
        auto *block = static_cast<unsigned char *>(resource->allocate(bytes, 64));
        QCOMPARE(reinterpret_cast<std::uintptr_t>(block) % (std::size_t(2) << 20), std::uintptr_t(0));
        QVERIFY2(vmFlagsAt(block).split(' ').contains("hg"), vmFlagsAt(block).constData());
        block[0] = 1;
        block[bytes - 1] = 2;
        QCOMPARE(int(block[0]) + int(block[bytes - 1]), 3);
        resource->deallocate(block, bytes, 64);
        QVERIFY(vmFlagsAt(block).isEmpty());
        // An arena over it, as the index uses it: its vectors live in those blocks.
        std::pmr::monotonic_buffer_resource arena(std::size_t(4) << 20, resource);
        std::pmr::vector<std::int64_t> values(&arena);
        values.assign(1000, 7);
        QVERIFY(vmFlagsAt(values.data()).split(' ').contains("hg"));
    }

    void resultHoldsValueOrError()
    {
        Result<int> good(42);
        QVERIFY(good.ok());
        QCOMPARE(good.value(), 42);
        Result<int> bad(Error{"trace.json: truncated at byte 12"});
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().message, std::string("trace.json: truncated at byte 12"));
    }

    void strongIdsAreDistinctTypes()
    {
        struct ATag {};
        struct BTag {};
        using A = StrongId<ATag>;
        using B = StrongId<BTag>;
        static_assert(!std::is_convertible_v<A, B>);
        static_assert(!std::is_convertible_v<std::uint32_t, A>);
        QVERIFY(!A().isValid());
        QVERIFY(A(3).isValid());
        QVERIFY(A(2) < A(3));
        QCOMPARE(std::hash<A>()(A(7)), std::hash<std::uint32_t>()(7));
    }

    void stopTokenCopiesShareTheFlag()
    {
        StopToken token;
        const StopToken copy = token;
        QVERIFY(!copy.stopRequested());
        std::thread([token] { token.requestStop(); }).join();
        QVERIFY(copy.stopRequested());
    }

    void progressIsThrottledAndMonotonic()
    {
        QList<int> seen;
        ProgressReporter progress([&](int permille) { seen.append(permille); }, std::chrono::milliseconds(0));
        for (std::uint64_t i = 0; i <= 1'000'000; ++i)
            progress.report(i, 1'000'000);
        // One report per permille step at most, in order, ending at 1000.
        QCOMPARE(seen.size(), 1001);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.front(), 0);
        QCOMPARE(seen.back(), 1000);
    }

    void progressRespectsMinimumInterval()
    {
        QList<int> seen;
        ProgressReporter progress([&](int permille) { seen.append(permille); }, std::chrono::hours(1));
        for (int i = 0; i < 1000; ++i)
            progress.report(std::uint64_t(i), 1000);
        QCOMPARE(seen, QList<int>{0}); // the first report passes, the interval blocks the rest
        progress.finish();
        QCOMPARE(seen, (QList<int>{0, 1000}));
        progress.finish();
        QCOMPARE(seen.size(), 2);
    }

    void progressHandlesHugeTotals()
    {
        int last = -1;
        ProgressReporter progress([&](int permille) { last = permille; }, std::chrono::milliseconds(0));
        progress.report(UINT64_MAX / 2, UINT64_MAX);
        QCOMPARE(last, 500);
        progress.report(5, 0); // no total: ignored
        QCOMPARE(last, 500);
    }
};

QTEST_GUILESS_MAIN(TestUtil)
#include "tst_util.moc"
