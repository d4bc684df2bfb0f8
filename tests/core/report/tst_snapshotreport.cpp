// An allocator snapshot's report sections (scripts/make-snapshots.py's snapshot ending in an OOM):
// the figures, the peak's table and the OOM's are those scripts/read-snapshot.py reads, and they
// render to Markdown.
#include <QTest>

#include "core/report/reportrender.h"
#include "core/report/snapshotreport.h"
#include "core/snapshot/reader.h"
#include "core/util/format.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace pyrometer;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = PYROMETER_TEST_SNAPSHOTS_DIR;

std::string factOf(const report::Section &section, const std::string &label)
{
    for (const auto &fact : section.facts)
        if (fact.label == label)
            return fact.value;
    return "(missing)";
}

} // namespace

class TestSnapshotReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sectionsOfAnOom()
    {
        const auto s = snapshot::loadSnapshot(kDir / "oom.pickle").value();
        const auto devices = snapshot::replay(*s);
        const auto ooms = snapshot::oomReports(*s, devices);
        std::ifstream in(kDir / "oom.pickle.expected.json");
        const auto want = nlohmann::json::parse(in);

        const auto sections = report::snapshotSections(*s, devices, ooms, "oom.pickle", "s-");
        QCOMPARE(sections.size(), std::size_t(3)); // the figures, the peak, the OOM
        const auto &summary = sections[0];
        QCOMPARE(summary.id, std::string("s-snapshot"));
        QCOMPARE(summary.title, std::string("Memory snapshot: oom.pickle"));
        QCOMPARE(factOf(summary, "Segments"), std::to_string(want["segments"].get<int>()));
        QCOMPARE(factOf(summary, "Reserved"), formatBytes(want["reserved_bytes"].get<std::uint64_t>()));
        QCOMPARE(factOf(summary, "Peak active, device 0"), formatBytes(want["peak_active_bytes"].get<std::uint64_t>()));
        QCOMPARE(factOf(summary, "OOMs"), std::string("1"));

        const auto &peak = sections[1];
        QCOMPARE(peak.level, 3);
        const auto &top = want["devices"][0]["top_at_peak"];
        QCOMPARE(peak.tables.size(), std::size_t(1));
        QCOMPARE(peak.tables[0].rows.size(), std::min<std::size_t>(top.size(), 15));
        QCOMPARE(peak.tables[0].rows[0][1], formatBytes(top[0]["bytes"].get<std::uint64_t>()));

        const auto &oom = sections[2];
        QCOMPARE(oom.id, std::string("s-snapshot-oom-1"));
        QCOMPARE(factOf(oom, "Requested"), formatBytes(want["ooms"][0]["requested_bytes"].get<std::uint64_t>()));
        QCOMPARE(factOf(oom, "Free on the device"),
                 formatBytes(want["ooms"][0]["device_free_bytes"].get<std::uint64_t>()));
        QCOMPARE(factOf(oom, "Live"), formatBytes(want["ooms"][0]["active_bytes"].get<std::uint64_t>()));
        QCOMPARE(oom.paragraphs.front(), ooms[0].verdict + ".");
        QVERIFY(!oom.tables[0].rows.empty());

        auto document = report::makeReport({}, {});
        report::appendSections(document, sections);
        const auto markdown = report::renderMarkdown(document);
        QVERIFY(markdown.find("Out of memory, device 0") != std::string::npos);
        QVERIFY(markdown.find(ooms[0].verdict) != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSnapshotReport)
#include "tst_snapshotreport.moc"
