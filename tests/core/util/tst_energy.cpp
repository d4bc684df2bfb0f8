#include "core/util/energy.h"

#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

using namespace pyrometer;
namespace fs = std::filesystem;

namespace {

// An unavailable probe says why, and a read of it fails with the same words.
void verifyUnavailable(const EnergyProbe &probe, const QString &reason)
{
    QVERIFY(!probe.available);
    QCOMPARE(QString::fromStdString(probe.reason), reason);
    const auto sample = readEnergy(probe);
    QVERIFY(!sample.ok());
    QCOMPARE(sample.error().message, probe.reason);
}

constexpr std::uint64_t ServerRange = 262'143'328'850; // max_energy_range_uj of a Xeon package

void writeFile(const fs::path &file, const std::string &text)
{
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    QVERIFY2(out.good(), file.c_str());
}

// One zone directory as the powercap driver lays it out (flat under /sys/class/powercap).
void writeZone(const fs::path &root, const std::string &directory, const std::string &name,
               std::uint64_t energy = 1'000'000, std::uint64_t range = ServerRange)
{
    fs::create_directories(root / directory);
    writeFile(root / directory / "name", name + "\n");
    writeFile(root / directory / "energy_uj", std::to_string(energy) + "\n");
    writeFile(root / directory / "max_energy_range_uj", std::to_string(range) + "\n");
}

// "intel-rapl:0=package-0" entries.
void writeZones(const fs::path &root, const QStringList &zones)
{
    for (const QString &zone : zones) {
        const auto parts = zone.split('=');
        writeZone(root, parts[0].toStdString(), parts[1].toStdString());
    }
}

// A two-socket server with core and DRAM subzones, plus the control type's own directory and
// the MMIO interface's copy of package 0, neither of which is a domain to count.
void writeServer(const fs::path &root)
{
    writeZones(root, {"intel-rapl:0=package-0", "intel-rapl:0:0=core", "intel-rapl:0:1=dram", "intel-rapl:1=package-1",
                      "intel-rapl:1:0=core", "intel-rapl:1:1=dram", "intel-rapl-mmio:0=package-0"});
    fs::create_directories(root / "intel-rapl");
    writeFile(root / "intel-rapl" / "enabled", "1\n");
}

QString reasonFor(const fs::path &file, const std::string &what)
{
    return QString::fromStdString("RAPL counters unreadable: " + file.string() + ": " + what);
}

} // namespace

class TestEnergy : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_dir;
    fs::path m_root; // a fresh, empty powercap root for every test and data row

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_root = m_dir->path().toStdString();
    }

    void probeFindsPackagesAndDram_data()
    {
        QTest::addColumn<QStringList>("zones");
        QTest::addColumn<QStringList>("expected"); // "directory=domain name", in order
        QTest::addRow("client: core, uncore and psys left out")
            << QStringList{"intel-rapl:0=package-0", "intel-rapl:0:0=core", "intel-rapl:0:1=uncore",
                           "intel-rapl:0:2=dram", "intel-rapl:1=psys"}
            << QStringList{"intel-rapl:0=package-0", "intel-rapl:0:2=package-0/dram"};
        QTest::addRow("top-level dram") << QStringList{"intel-rapl:1=dram", "intel-rapl:0=package-0"}
                                        << QStringList{"intel-rapl:0=package-0", "intel-rapl:1=dram"};
        QTest::addRow("zone numbers sort as numbers")
            << QStringList{"intel-rapl:10=package-10", "intel-rapl:2=package-2", "intel-rapl:2:10=dram",
                           "intel-rapl:2:9=core"}
            << QStringList{"intel-rapl:2=package-2", "intel-rapl:2:10=package-2/dram", "intel-rapl:10=package-10"};
        QTest::addRow("package only") << QStringList{"intel-rapl:0=package-0"} << QStringList{"intel-rapl:0=package-0"};
    }
    void probeFindsPackagesAndDram()
    {
        QFETCH(QStringList, zones);
        QFETCH(QStringList, expected);
        const fs::path &root = m_root;
        writeZones(root, zones);

        const EnergyProbe probe = probeRapl(root);
        QVERIFY2(probe.available, probe.reason.c_str());
        QCOMPARE(QString::fromStdString(probe.reason), QString());
        QStringList found;
        for (const RaplDomain &domain : probe.domains) {
            QCOMPARE(domain.energyFile.filename().string(), std::string("energy_uj"));
            QCOMPARE(domain.maxEnergyRangeUj, ServerRange);
            found << QString::fromStdString(domain.energyFile.parent_path().filename().string() + "=" + domain.name);
        }
        QCOMPARE(found, expected);
    }

    void probeOfAServer()
    {
        const fs::path &root = m_root;
        writeServer(root);
        const EnergyProbe expected{true,
                                   {},
                                   {{"package-0", root / "intel-rapl:0" / "energy_uj", ServerRange},
                                    {"package-0/dram", root / "intel-rapl:0:1" / "energy_uj", ServerRange},
                                    {"package-1", root / "intel-rapl:1" / "energy_uj", ServerRange},
                                    {"package-1/dram", root / "intel-rapl:1:1" / "energy_uj", ServerRange}}};
        QVERIFY(probeRapl(root) == expected);
    }

    // End to end: probe, sample, let the counters move, sample again.
    void joulesFromCounters_data()
    {
        QTest::addColumn<quint64>("packageBefore");
        QTest::addColumn<quint64>("packageAfter");
        QTest::addColumn<quint64>("dramBefore");
        QTest::addColumn<quint64>("dramAfter");
        QTest::addColumn<double>("joules");
        QTest::addRow("advance") << quint64(1'000'000) << quint64(3'500'000) << quint64(200'000) << quint64(450'000)
                                 << 2.75;
        QTest::addRow("no change") << quint64(7) << quint64(7) << quint64(9) << quint64(9) << 0.0;
        // ServerRange - 262'143'000'000 + 1 + 500'000 = 828'851 µJ, plus 250'000 µJ of DRAM.
        QTest::addRow("package wraps") << quint64(262'143'000'000) << quint64(500'000) << quint64(200'000)
                                       << quint64(450'000) << 1.078851;
        // From the top value itself the next reading 0 is one step on: 1 µJ.
        QTest::addRow("wraps from the top value to 0")
            << quint64(ServerRange) << quint64(0) << quint64(5) << quint64(5) << 0.000001;
    }
    void joulesFromCounters()
    {
        QFETCH(quint64, packageBefore);
        QFETCH(quint64, packageAfter);
        QFETCH(quint64, dramBefore);
        QFETCH(quint64, dramAfter);
        QFETCH(double, joules);
        const fs::path &root = m_root;
        writeZone(root, "intel-rapl:0", "package-0", packageBefore);
        writeZone(root, "intel-rapl:0:0", "dram", dramBefore);

        const EnergyProbe probe = probeRapl(root);
        QVERIFY2(probe.available, probe.reason.c_str());
        QCOMPARE(probe.domains.size(), std::size_t(2));
        const auto before = readEnergy(probe);
        QVERIFY2(before.ok(), before.ok() ? "" : before.error().message.c_str());
        QVERIFY(before->microjoules == (std::vector<std::uint64_t>{packageBefore, dramBefore}));

        writeFile(root / "intel-rapl:0" / "energy_uj", std::to_string(packageAfter) + "\n");
        writeFile(root / "intel-rapl:0:0" / "energy_uj", std::to_string(dramAfter) + "\n");
        const auto after = readEnergy(probe);
        QVERIFY2(after.ok(), after.ok() ? "" : after.error().message.c_str());
        QVERIFY(after->microjoules == (std::vector<std::uint64_t>{packageAfter, dramAfter}));

        const double measured = joulesBetween(probe, before.value(), after.value());
        // Exact to the microjoule: the figures are integers of µJ.
        QCOMPARE(qRound64(measured * 1e6), qRound64(joules * 1e6));
        QCOMPARE(measured, joules);
    }

    void wrapUsesEachDomainsOwnRange()
    {
        const EnergyProbe probe{true, {}, {{"package-0", "a", 999'999}, {"dram", "b", 99}}};
        // 999'999 - 999'990 + 1 + 10 = 20 µJ; 99 - 95 + 1 + 3 = 8 µJ.
        const double joules = joulesBetween(probe, EnergySample{{999'990, 95}}, EnergySample{{10, 3}});
        QCOMPARE(qRound64(joules * 1e6), qint64(28));
    }

    void noCounters_data()
    {
        QTest::addColumn<QStringList>("zones");
        QTest::addColumn<QString>("reasonAfterRoot");
        QTest::addRow("empty powercap") << QStringList{}
                                        << " has no intel-rapl domains (a virtual machine or a CPU without RAPL)";
        QTest::addRow("only other control types")
            << QStringList{"intel-rapl-mmio:0=package-0", "dtpm:0=soc"}
            << " has no intel-rapl domains (a virtual machine or a CPU without RAPL)";
        QTest::addRow("only psys and subzones") << QStringList{"intel-rapl:0=psys", "intel-rapl:1:0=core"}
                                                << " has no package or DRAM domain (only psys, core or uncore)";
    }
    void noCounters()
    {
        QFETCH(QStringList, zones);
        QFETCH(QString, reasonAfterRoot);
        const fs::path &root = m_root;
        writeZones(root, zones);
        const EnergyProbe probe = probeRapl(root);
        QVERIFY(probe.domains.empty());
        verifyUnavailable(probe, QString::fromStdString("no RAPL counters: " + root.string()) + reasonAfterRoot);
    }

    void missingRoot()
    {
        const fs::path root = m_root / "class" / "powercap";
        verifyUnavailable(probeRapl(root),
                          QString::fromStdString("no RAPL counters: " + root.string() +
                                                 " does not exist (a virtual machine, or a kernel without powercap)"));
    }

    // Tests run as root, which reads a chmod 000 file anyway: these are failures root meets too.
    void unreadableCounter_data()
    {
        QTest::addColumn<QString>("file"); // under the root of writeServer()
        QTest::addColumn<QString>("fault");
        QTest::addColumn<QString>("what"); // the reason's end, after the file
        QTest::addRow("energy_uj is a directory") << "intel-rapl:1:1/energy_uj"
                                                  << "directory" << QString::fromUtf8(std::strerror(EISDIR));
        QTest::addRow("energy_uj is a dangling link") << "intel-rapl:0/energy_uj"
                                                      << "dangling" << QString::fromUtf8(std::strerror(ENOENT));
        QTest::addRow("energy_uj is not a number") << "intel-rapl:1/energy_uj"
                                                   << "text:12 mJ"
                                                   << "not a number: \"12 mJ\"";
        QTest::addRow("energy_uj is empty") << "intel-rapl:0:1/energy_uj"
                                            << "text:"
                                            << "not a number: \"\"";
        QTest::addRow("energy_uj is negative") << "intel-rapl:0/energy_uj"
                                               << "text:-5"
                                               << "not a number: \"-5\"";
        QTest::addRow("max_energy_range_uj missing")
            << "intel-rapl:1/max_energy_range_uj"
            << "remove" << QString::fromUtf8(std::strerror(ENOENT)) + "; without it a wrap-around cannot be corrected";
        QTest::addRow("max_energy_range_uj a directory")
            << "intel-rapl:0:1/max_energy_range_uj"
            << "directory"
            << QString::fromUtf8(std::strerror(EISDIR)) + "; without it a wrap-around cannot be corrected";
        QTest::addRow("name unreadable") << "intel-rapl:1:1/name"
                                         << "directory" << QString::fromUtf8(std::strerror(EISDIR));
    }
    void unreadableCounter()
    {
        QFETCH(QString, file);
        QFETCH(QString, fault);
        QFETCH(QString, what);
        const fs::path &root = m_root;
        writeServer(root);
        QVERIFY(probeRapl(root).available); // the fault below is what makes it unavailable
        const fs::path broken = root / file.toStdString();
        fs::remove(broken);
        if (fault == "directory")
            fs::create_directory(broken);
        else if (fault == "dangling")
            fs::create_symlink(root / "nowhere" / "energy_uj", broken);
        else if (fault.startsWith("text:"))
            writeFile(broken, fault.mid(5).toStdString() + "\n");

        verifyUnavailable(probeRapl(root), reasonFor(broken, what.toStdString()));
    }

    // A counter that breaks after a good probe fails the read, naming the file.
    void readFailsAfterProbe_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<QString>("what");
        QTest::addRow("directory") << "directory" << QString::fromUtf8(std::strerror(EISDIR));
        QTest::addRow("not a number") << "text:0x1F"
                                      << "not a number: \"0x1F\"";
        QTest::addRow("overflows 64 bits") << "text:18446744073709551616"
                                           << "not a number: \"18446744073709551616\"";
    }
    void readFailsAfterProbe()
    {
        QFETCH(QString, fault);
        QFETCH(QString, what);
        const fs::path &root = m_root;
        writeServer(root);
        const EnergyProbe probe = probeRapl(root);
        QVERIFY2(probe.available, probe.reason.c_str());
        QVERIFY(readEnergy(probe).ok());

        const fs::path broken = root / "intel-rapl:1" / "energy_uj";
        fs::remove(broken);
        if (fault == "directory")
            fs::create_directory(broken);
        else
            writeFile(broken, fault.mid(5).toStdString() + "\n");
        const auto sample = readEnergy(probe);
        QVERIFY(!sample.ok());
        QCOMPARE(QString::fromStdString(sample.error().message), reasonFor(broken, what.toStdString()));
    }

    // Whatever this machine offers, the probe is consistent with a read of it.
    // Hand-computed: the machine's figure, the idle draw, and what is left above it.
    void energyAboveIdle_data()
    {
        QTest::addColumn<double>("runJoules");
        QTest::addColumn<double>("runSeconds");
        QTest::addColumn<double>("idleJoules");
        QTest::addColumn<double>("idleSeconds");
        QTest::addColumn<double>("inferences");
        QTest::addColumn<double>("aboveIdleMj");
        QTest::addColumn<double>("machineMj");
        QTest::addColumn<double>("idleWatts");
        // 30 J over 2 s of 100 inferences; 20 J over a 2 s wait: 10 W idle, 20 J of it in the
        // runs, 10 J above it: 100 mJ each of 300.
        QTest::addRow("same length") << 30.0 << 2.0 << 20.0 << 2.0 << 100.0 << 100.0 << 300.0 << 10.0;
        // A 0.5 s wait scaled to 4 s of runs: 6 J / 0.5 s = 12 W, 48 J of 80 J idle; 32 J over
        // 400 inferences = 80 mJ, of 200 mJ each.
        QTest::addRow("shorter wait, scaled") << 80.0 << 4.0 << 6.0 << 0.5 << 400.0 << 80.0 << 200.0 << 12.0;
        // Noise: the runs read below the idle draw; nothing above it, not a negative figure.
        QTest::addRow("below idle") << 9.0 << 1.0 << 10.0 << 1.0 << 10.0 << 0.0 << 900.0 << 10.0;
        // No idle draw at all: the machine's figure is all above idle.
        QTest::addRow("no idle draw") << 0.002 << 0.01 << 0.0 << 0.2 << 2.0 << 1.0 << 1.0 << 0.0;
    }
    void energyAboveIdle()
    {
        QFETCH(double, runJoules);
        QFETCH(double, runSeconds);
        QFETCH(double, idleJoules);
        QFETCH(double, idleSeconds);
        QFETCH(double, inferences);
        const auto energy = inferenceEnergy(runJoules, runSeconds, idleJoules, idleSeconds, inferences);
        QVERIFY(energy);
        QTEST(energy->aboveIdleMj, "aboveIdleMj");
        QTEST(energy->machineMj, "machineMj");
        QTEST(energy->idleWatts, "idleWatts");
    }

    void energyAboveIdleNeedsDurations()
    {
        QVERIFY(!inferenceEnergy(1, 0, 1, 1, 1));
        QVERIFY(!inferenceEnergy(1, 1, 1, 0, 1));
        QVERIFY(!inferenceEnergy(1, 1, 1, 1, 0));
    }

    void idleWindowFollowsTheRuns()
    {
        using namespace std::chrono_literals;
        QCOMPARE(idleWindow(0.75s), 750ms);
        QCOMPARE(idleWindow(0.01s), 200ms);
        QCOMPARE(idleWindow(30s), 2000ms);
    }

    void thisMachine()
    {
        const EnergyProbe probe = probeRapl();
        qInfo("RAPL on this machine: %s", probe.available ? "available" : probe.reason.c_str());
        QCOMPARE(probe.available, probe.reason.empty());
        const auto sample = readEnergy(probe);
        QCOMPARE(sample.ok(), probe.available);
        if (probe.available) {
            QVERIFY(!probe.domains.empty());
            QCOMPARE(sample->microjoules.size(), probe.domains.size());
        } else {
            QCOMPARE(sample.error().message, probe.reason);
        }
    }
};

QTEST_GUILESS_MAIN(TestEnergy)
#include "tst_energy.moc"
