// Device roofs: the names real traces and users write resolve to the right table entry, names
// that say too little (or name another part) resolve to none, and every entry is complete.
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/analysis/deviceroof.h"
#endif

#include <QObject>
#include <QtTest>

#include <set>
#include <utility>
#include <vector>

using namespace pyrometer::analysis;

class TestDeviceRoof : public QObject {
    Q_OBJECT

private slots:
    void precisionNames()
    {
        const std::vector<std::string_view> expected{"FP64", "FP32", "TF32", "BF16", "FP16", "FP8", "INT8"};
        QCOMPARE(expected.size(), kPrecisionCount);
        for (std::size_t p = 0; p < kPrecisionCount; ++p)
            QCOMPARE(precisionName(static_cast<Precision>(p)), expected[p]);
    }

    void resolves_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        const std::vector<std::pair<const char *, const char *>> rows{
            // deviceProperties names from real traces.
            {"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"},
            {"NVIDIA A100-PG509-200", "NVIDIA A100 SXM4 40GB"},
            {"NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM4 80GB"},
            {"NVIDIA A100 80GB PCIe", "NVIDIA A100 PCIe 80GB"},
            {"NVIDIA A100-PCIE-40GB", "NVIDIA A100 PCIe 40GB"},
            {"Tesla V100-DGXS-32GB", "NVIDIA Tesla V100 SXM2"},
            {"Tesla V100-PCIE-32GB", "NVIDIA Tesla V100 PCIe"},
            {"AMD Instinct MI250X / MI250", "AMD Instinct MI250X (per GCD)"},
            {"AMD Instinct MI300X", "AMD Instinct MI300X"},
            {"NVIDIA A10", "NVIDIA A10"},
            {"NVIDIA L4", "NVIDIA L4"},
            // What users type.
            {"h100", "NVIDIA H100 SXM5 80GB"},
            {"H100 PCIe", "NVIDIA H100 PCIe"},
            {"mi300x", "AMD Instinct MI300X"},
            {"a100 80gb", "NVIDIA A100 SXM4 80GB"},
            {"v100", "NVIDIA Tesla V100 SXM2"},
        };
        for (const auto &[name, expected] : rows)
            QTest::addRow("%s", name) << QString(name) << QString(expected);
    }

    void resolves()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        const auto device = findDevice(name.toStdString());
        QVERIFY(device.has_value());
        QCOMPARE(QString::fromStdString(device->name), expected);
    }

    void unknown_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("radeon") << "AMD Radeon Graphics";
        QTest::addRow("gh200") << "NVIDIA GH200 480GB";
        QTest::addRow("a10g") << "NVIDIA A10G";
        QTest::addRow("gb200") << "NVIDIA GB200";
        QTest::addRow("l40") << "NVIDIA L40";
        QTest::addRow("mi300a") << "AMD Instinct MI300A";
        QTest::addRow("empty") << "";
        QTest::addRow("cpu") << "cpu";
    }

    void unknown()
    {
        QFETCH(QString, name);
        const auto device = findDevice(name.toStdString());
        QVERIFY2(!device.has_value(), device ? device->name.c_str() : "");
    }

    void entries_data()
    {
        QTest::addColumn<int>("index");
        const auto &table = deviceTable();
        for (std::size_t i = 0; i < table.size(); ++i)
            QTest::addRow("%s", table[i].name.c_str()) << static_cast<int>(i);
    }

    void entries()
    {
        QFETCH(int, index);
        const auto &device = deviceTable().at(static_cast<std::size_t>(index));
        QVERIFY(device.bandwidth > 0);
        QVERIFY(device.vectorFlops > 0);
        QVERIFY(!device.source.empty());
        QVERIFY(!device.measured);
        QVERIFY(device.matrix(Precision::FP16) >= device.vectorFlops);
        // Each entry's own name finds it, so no earlier rule shadows it.
        const auto found = findDevice(device.name);
        QVERIFY(found.has_value());
        QCOMPARE(*found, device);
    }

    void uniqueNames()
    {
        std::set<std::string> names;
        for (const auto &device : deviceTable())
            QVERIFY2(names.insert(device.name).second, device.name.c_str());
        QVERIFY(!names.empty());
    }
};

QTEST_GUILESS_MAIN(TestDeviceRoof)
#include "tst_deviceroof.moc"
