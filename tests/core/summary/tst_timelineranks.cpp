// Which ranks of a job the Timeline shows, and whether a rank's trace on this machine is the file
// its summary was made from.
#include <QTemporaryDir>
#include <QTest>

#include "core/summary/timelineranks.h"
#include "core/trace/checksum.h"

#include <filesystem>
#include <fstream>

using namespace pyrometer;
using namespace pyrometer::analysis;
using summary::RankTrace;
namespace fs = std::filesystem;

namespace {

// 20 ranks, computing 100 + r µs each, rank 13 (300 µs) the straggler.
JobFigures twentyRanks()
{
    JobFigures job;
    for (int r = 0; r < 20; ++r) {
        RankFigures rank;
        rank.rank = r;
        rank.computeNs = (r == 13 ? 300 : 100 + r) * 1000;
        job.ranks.push_back(rank);
    }
    job.stragglers.push_back({13, 300, 110, 2.7, "slow"});
    return job;
}

void writeText(const fs::path &file, const std::string &text)
{
    std::ofstream out(file, std::ios::binary);
    out << text;
}

const std::string kTrace = R"({"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 10, "dur": 500}]})";

} // namespace

class TestTimelineRanks : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void ranksWhoseTracesAreNotHereAreLeftOut()
    {
        const auto job = twentyRanks();
        // Ranks 0 to 3 and the straggler cannot be read.
        const auto chosen = summary::chooseTimelineRanks(
            job, 8, [](std::size_t i) { return i > 3 && i != 13 ? RankTrace::Here : RankTrace::Missing; });
        QCOMPARE(chosen.ranks.size(), std::size_t(8));
        for (const auto i : chosen.ranks)
            QVERIFY(i > 3 && i != 13);
        QVERIFY2(chosen.reason.find("5 of the 20 ranks' trace files cannot be read") != std::string::npos,
                 chosen.reason.c_str());
        const auto few =
            summary::chooseTimelineRanks(job, 8, [](std::size_t i) { return i < 3 ? RankTrace::Here : RankTrace::Missing; });
        QCOMPARE(few.ranks, (std::vector<std::size_t>{0, 1, 2}));
        QVERIFY2(few.reason.find("the 3 ranks whose traces can be read") != std::string::npos, few.reason.c_str());
        // Files that are not the ones the summaries were made from are left out too, and said.
        const auto changed = summary::chooseTimelineRanks(job, 8, [](std::size_t i) {
            return i < 2 ? RankTrace::Here : i < 4 ? RankTrace::Different : RankTrace::Missing;
        });
        QCOMPARE(changed.ranks, (std::vector<std::size_t>{0, 1}));
        QVERIFY2(changed.reason.find("16 of the 20 ranks' trace files cannot be read") != std::string::npos,
                 changed.reason.c_str());
        QVERIFY2(changed.reason.find("2 ranks' traces are not the files their summaries were made from") != std::string::npos,
                 changed.reason.c_str());
    }

    void manyRanksShowTheStragglerMedianAndLowest()
    {
        const auto job = twentyRanks();
        const auto chosen = summary::chooseTimelineRanks(job, 8, [](std::size_t) { return RankTrace::Here; });
        QCOMPARE(chosen.ranks.size(), std::size_t(8));
        // The straggler, the median (rank 10 of compute 110), and the lowest ranks 0..5.
        QCOMPARE(chosen.ranks, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 10, 13}));
        QVERIFY2(chosen.reason.find("straggler(s) 13") != std::string::npos, chosen.reason.c_str());
        QVERIFY2(chosen.reason.find("rank 10 (median") != std::string::npos, chosen.reason.c_str());
        QVERIFY(chosen.reason.find("8 of the 20 ranks") != std::string::npos);
    }

    void aRankTraceIsTheFileItsSummaryWasMadeFrom()
    {
        QTemporaryDir dir;
        const fs::path file = dir.filePath("rank-0.json").toStdString();
        writeText(file, kTrace);
        const auto checksum = trace::fileChecksum(file);
        QVERIFY(checksum.ok());

        JobFigures job;
        RankFigures rank;
        rank.rank = 0;
        rank.file = file.string();
        job.ranks.push_back(rank);
        // Summarised here: the file is the trace.
        QCOMPARE(summary::rankTraceHere(job.ranks[0]), RankTrace::Here);
        QVERIFY(!summary::traceDiffersFromSummary(job.ranks[0]));
        // Read from a summary of this very file.
        job.ranks[0].summarisedBytes = checksum.value().bytes;
        job.ranks[0].summarisedCrc32 = checksum.value().crc32;
        QCOMPARE(summary::rankTraceHere(job.ranks[0]), RankTrace::Here);
        QVERIFY(!summary::traceDiffersFromSummary(job.ranks[0]));
        ProgressReporter progress;
        const StopToken stop;
        const auto loaded = summary::loadCombinedRanks(job, {0}, progress, stop);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());

        // Rewritten with the same size and other contents: the size cannot tell, the CRC-32 can,
        // and the Timeline refuses to show it as the job's rank 0.
        auto changed = kTrace;
        changed.replace(changed.find("\"dur\": 500"), 10, "\"dur\": 900");
        writeText(file, changed);
        QCOMPARE(summary::rankTraceHere(job.ranks[0]), RankTrace::Here);
        const auto differs = summary::traceDiffersFromSummary(job.ranks[0]);
        QVERIFY(differs);
        QVERIFY2(differs->find(file.string() + " has CRC-32 ") == 0, differs->c_str());
        const auto refused = summary::loadCombinedRanks(job, {0}, progress, stop);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().message, *differs);

        // Another size: a stat tells, which a menu can afford.
        writeText(file, changed + "\n");
        QCOMPARE(summary::rankTraceHere(job.ranks[0]), RankTrace::Different);
        const auto bigger = summary::traceDiffersFromSummary(job.ranks[0]);
        QVERIFY(bigger);
        QVERIFY2(bigger->find(std::to_string(kTrace.size() + 1) + " bytes), not the") != std::string::npos, bigger->c_str());

        fs::remove(file);
        QCOMPARE(summary::rankTraceHere(job.ranks[0]), RankTrace::Missing);
    }
};

QTEST_GUILESS_MAIN(TestTimelineRanks)
#include "tst_timelineranks.moc"
