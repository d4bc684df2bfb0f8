// The kernel table against golden tables an independent Python computation wrote.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/kerneltable.h"
#endif

#include <QObject>

#include <algorithm>

#include <map>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

class TestKernelTable : public QObject {
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
        const auto table = buildKernelTable(*loaded.index);
        std::map<std::pair<std::string, std::string>, KernelRow> rows;
        for (const auto &row : table.rows)
            rows[{std::string(kindName(row.kind)), row.name}] = row;
        const auto expected = readCsv(goldenPath(name, ".kernels.csv"));
        QVERIFY(!expected.empty());
        QCOMPARE(rows.size(), expected.size() - 1);
        std::int64_t total = 0;
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            const auto it = rows.find({e[0], e[1]});
            QVERIFY2(it != rows.end(), e[1].c_str());
            QCOMPARE(it->second.count, std::stoull(e[2]));
            QCOMPARE(it->second.totalNs, microsToNs(e[3]));
            QCOMPARE(it->second.minNs, microsToNs(e[4]));
            QCOMPARE(it->second.maxNs, microsToNs(e[5]));
            total += it->second.totalNs;
        }
        QCOMPARE(table.totalNs, total);
        std::int64_t streamTotal = 0;
        for (const auto &s : table.streams)
            streamTotal += s.totalNs;
        QCOMPARE(streamTotal, total);
        double percent = 0;
        for (const auto &row : table.rows)
            percent += row.percent;
        if (total > 0)
            QVERIFY(std::abs(percent - 100.0) < 1e-6);
    }

    // The launching op comes from the runtime call with the same correlation id.
    void launchOp()
    {
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        const auto table = buildKernelTable(*loaded.index);
        bool found = false;
        for (const auto &row : table.rows) {
            if (row.name.find("indexSelectLargeIndex") != std::string::npos) {
                QCOMPARE(row.launchOp, std::string("aten::index_select"));
                found = true;
            }
        }
        QVERIFY(found);
    }

    void byStream()
    {
        const auto loaded = loadFixture("v100_resnet50");
        QVERIFY(loaded.index);
        KernelTableOptions options;
        options.byStream = true;
        const auto perStream = buildKernelTable(*loaded.index, options);
        const auto plain = buildKernelTable(*loaded.index);
        QVERIFY(perStream.rows.size() >= plain.rows.size());
        QCOMPARE(perStream.totalNs, plain.totalNs);
        for (const auto &row : perStream.rows) {
            QCOMPARE(row.device, 0);
            QVERIFY(row.stream >= 0);
        }
        QVERIFY(!plain.streams.empty());
        QCOMPARE(plain.streams.front().device, 0);
    }

    // A table of only the processes that hold device tracks has every kernel; of only the
    // others, none.
    void processes()
    {
        const auto loaded = loadFixture("v100_resnet50");
        QVERIFY(loaded.index);
        const auto &trace = *loaded.trace;
        KernelTableOptions device;
        KernelTableOptions host;
        device.processes.included.assign(trace.processes.size(), false);
        host.processes.included.assign(trace.processes.size(), false);
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t)
            if (loaded.index->tracks[t].hasDevice)
                device.processes.included[trace.tracks[t].process.value] = true;
        for (std::size_t p = 0; p < trace.processes.size(); ++p)
            host.processes.included[p] = !device.processes.included[p];
        QVERIFY(std::count(host.processes.included.begin(), host.processes.included.end(), true) > 0);
        const auto plain = buildKernelTable(*loaded.index);
        const auto onDevice = buildKernelTable(*loaded.index, device);
        QVERIFY(plain.totalNs > 0);
        QCOMPARE(onDevice.totalNs, plain.totalNs);
        QCOMPARE(onDevice.rows.size(), plain.rows.size());
        const auto onHost = buildKernelTable(*loaded.index, host);
        QCOMPARE(onHost.totalNs, std::int64_t(0));
        QVERIFY(onHost.rows.empty());
    }

    // torch.compile: the Triton kernel's launching op sits inside "Torch-Compiled Region: 0/0";
    // eager kernels are in no region.
    void compiledRegion()
    {
        auto loaded = trace::loadTrace(std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces/triton_example.json.gz");
        QVERIFY(loaded.ok());
        const auto index = buildTraceIndex(*loaded.value());
        const auto table = buildKernelTable(*index);
        QCOMPARE(table.rows.size(), std::size_t(1));
        QCOMPARE(table.rows[0].name, std::string("triton_poi_fused_add_cos_sin_0"));
        QCOMPARE(table.rows[0].launchOp, std::string("triton_poi_fused_add_cos_sin_0"));
        QCOMPARE(table.rows[0].region, std::string("Torch-Compiled Region: 0/0"));
        QVERIFY(isCompiledRegionName("CompiledFunctionBackward"));
        QVERIFY(!isCompiledRegionName("aten::addmm"));
        for (const auto &row : buildKernelTable(*loadFixture("h100_bert").index).rows)
            QVERIFY2(row.region.empty(), row.name.c_str());
    }
};

QTEST_GUILESS_MAIN(TestKernelTable)
#include "tst_kerneltable.moc"
