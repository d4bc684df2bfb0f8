#include "core/util/cpufeatures.h"
#include "core/util/format.h"
#include "core/util/progress.h"
#include "core/util/result.h"
#include "core/util/strongid.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <thread>
#include <type_traits>

using namespace pyrometer;

class TestUtil : public QObject {
    Q_OBJECT
private Q_SLOTS:
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
