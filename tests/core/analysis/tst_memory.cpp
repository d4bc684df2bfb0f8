// Memory per device against golden peaks an independent Python computation wrote.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/memory.h"
#endif

#include <QObject>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

class TestMemory : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const auto &name : fixtureNames())
            QTest::addRow("%s", name.c_str()) << QString::fromStdString(name);
    }

    void golden()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto report = buildMemoryReport(*loaded.index);
        const auto expected = readCsv(goldenPath(name, ".memory.csv"));
        QVERIFY(!expected.empty());
        QCOMPARE(report.devices.size(), expected.size() - 1);
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &device = report.devices[r - 1];
            QCOMPARE(device.device, expected[r][0]);
            QCOMPARE(device.peakBytes, std::stoll(expected[r][1]));
            QVERIFY(!device.allocated.empty());
            std::int64_t max = 0;
            for (const auto &point : device.allocated)
                max = std::max(max, point.bytes);
            QCOMPARE(max, device.peakBytes);
        }
    }

    // Devices by c10::DeviceType as torch names them: a ROCm run's memory events say HIP (6).
    void deviceNames()
    {
        QCOMPARE(deviceName(0, -1), std::string("cpu"));
        QCOMPARE(deviceName(1, 0), std::string("cuda:0"));
        QCOMPARE(deviceName(6, 2), std::string("hip:2"));
        QCOMPARE(deviceName(19, 17), std::string("mtia:17"));
        QCOMPARE(deviceName(42, 1), std::string("device42:1"));
    }

    void totalsAndTopOps()
    {
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        const auto report = buildMemoryReport(*loaded.index);
        QCOMPARE(report.devices.size(), std::size_t(2));
        const auto &cuda = report.devices[1];
        QCOMPARE(cuda.device, std::string("cuda:0"));
        QVERIFY(cuda.peakFromTotals);
        QVERIFY(!cuda.reserved.empty());
        QVERIFY(cuda.allocations > 0 && cuda.frees > 0);
        QVERIFY(!cuda.topOps.empty());
        for (std::size_t i = 1; i < cuda.topOps.size(); ++i)
            QVERIFY(cuda.topOps[i - 1].allocatedBytes >= cuda.topOps[i].allocatedBytes);
        // The 2021 trace predates Total Allocated: the peak comes from the running sum.
        const auto old = buildMemoryReport(*loadFixture("v100_resnet50").index);
        QVERIFY(!old.devices.empty());
        QVERIFY(!old.devices.back().peakFromTotals);
        QVERIFY(old.devices.back().reserved.empty());
    }

    void range()
    {
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        const auto all = buildMemoryReport(*loaded.index);
        const auto &curve = all.devices[1].allocated;
        QVERIFY(curve.size() > 10);
        MemoryOptions options;
        options.range = {curve[2].timeNs, curve[5].timeNs};
        const auto some = buildMemoryReport(*loaded.index, options);
        QVERIFY(!some.devices.empty());
        const auto &part = some.devices.back().allocated;
        QVERIFY(part.size() >= 3 && part.size() < curve.size());
        QCOMPARE(part.front(), curve[2]);
    }
};

QTEST_GUILESS_MAIN(TestMemory)
#include "tst_memory.moc"
