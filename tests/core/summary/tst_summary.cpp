// Rank summaries: what summarize writes reads back equal, merging is associative, and a job
// opened from summaries has exactly the figures of the same job summarised from its traces.
#include <QTemporaryDir>
#include <QTest>

#include "core/analysis/job.h"
#include "core/analysis/ranksummary.h"
#include "core/summary/jobsource.h"
#include "core/summary/summaryfile.h"
#include "core/trace/checksum.h"

#include <filesystem>
#include <fstream>

using namespace pyrometer;
using namespace pyrometer::analysis;
namespace fs = std::filesystem;

namespace {

const fs::path kRealRanks = PYROMETER_FIXTURES_DIR "/traces/multirank";
const fs::path kJobs = PYROMETER_TEST_JOBS_DIR;

fs::path realRank(int n)
{
    return kRealRanks / ("sampled_rank-" + std::to_string(n) + ".json.gz");
}

// What pyrometer-cli summarize writes of a trace.
RankSummary summaryOf(const fs::path &file)
{
    auto summary = summary::summariseTraceFile(file);
    if (!summary.ok())
        qFatal("%s", summary.error().message.c_str());
    return std::move(summary).value();
}

void writeText(const fs::path &file, const std::string &text)
{
    std::ofstream out(file, std::ios::binary);
    out << text;
}

// A job's figures without where each rank was read from: a rank read from a summary carries the
// size and CRC-32 of the trace it was made from, one summarised here does not.
JobFigures figuresOnly(JobFigures job)
{
    for (auto &rank : job.ranks) {
        rank.summarisedBytes = 0;
        rank.summarisedCrc32 = 0;
    }
    return job;
}

std::string readText(const fs::path &file)
{
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> jobTraces(const fs::path &folder)
{
    auto files = jobFiles({folder});
    return files.ok() ? files.value() : std::vector<fs::path>{};
}

} // namespace

class TestSummary : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void checksumIsZlibsCrc32()
    {
        QTemporaryDir dir;
        const fs::path file = dir.filePath("check.txt").toStdString();
        writeText(file, "123456789");
        const auto sum = trace::fileChecksum(file);
        QVERIFY(sum.ok());
        QCOMPARE(sum.value().bytes, 9u);
        QCOMPARE(sum.value().crc32, 0xcbf43926u); // CRC-32's published check value
        QCOMPARE(trace::crc32Text(sum.value().crc32), std::string("cbf43926"));
        const auto missing = trace::fileChecksum(dir.filePath("none").toStdString());
        QVERIFY(!missing.ok());
        QVERIFY(missing.error().message.find("none") != std::string::npos);
    }

    void summaryHoldsWhatTheJobViewsNeed()
    {
        const auto summary = summaryOf(realRank(0));
        QCOMPARE(summary.figures.rank, 0);
        QCOMPARE(summary.figures.worldSize, 128);
        QVERIFY(summary.figures.stepCount() > 0);
        QVERIFY(!summary.figures.collectives.empty());
        QVERIFY(!summary.topOps.empty());
        QVERIFY(summary.topOps.size() <= kSummaryTopRows);
        QVERIFY(!summary.topKernels.empty());
        // Rows are the table's longest: by self time, and none beyond the sum over every op.
        for (std::size_t i = 1; i < summary.topOps.size(); ++i)
            QVERIFY(summary.topOps[i - 1].selfNs >= summary.topOps[i].selfNs);
        std::int64_t kernels = 0;
        for (const auto &row : summary.topKernels)
            kernels += row.totalNs;
        QVERIFY(kernels <= summary.kernelTotalNs);
        QVERIFY(summary.memoryPeaks.empty()); // the sampled ranks recorded no memory
        QCOMPARE(summary.traceBytes, std::uint64_t(fs::file_size(realRank(0))));
    }

    void memoryPeaksPerDevice()
    {
        // The H100 BERT trace's peaks, as its golden memory table (h100_bert.memory.csv) has them.
        const auto summary = summaryOf(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
        QCOMPARE(summary.memoryPeaks.size(), 2u);
        QCOMPARE(summary.memoryPeaks[0].device, std::string("cpu"));
        QCOMPARE(summary.memoryPeaks[0].peakBytes, std::int64_t(16));
        QCOMPARE(summary.memoryPeaks[1].device, std::string("cuda:0"));
        QCOMPARE(summary.memoryPeaks[1].peakBytes, std::int64_t(101305344));
        QCOMPARE(summary.memoryPeaks[1].peakTimeNs, std::int64_t(1419247337276476));
    }

    void readsBackEqual()
    {
        QTemporaryDir dir;
        summary::JobSummary job;
        for (int n : {0, 1}) {
            const auto rank = summaryOf(realRank(n));
            const fs::path file = dir.filePath(QString("r%1.summary.json").arg(n)).toStdString();
            QVERIFY(summary::writeRankSummary(file, rank).ok());
            const auto read = summary::readSummary(file);
            QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
            QCOMPARE(read.value().ranks.size(), 1u);
            QVERIFY(read.value().ranks.front() == rank);
            // Kilobytes, not megabytes.
            QVERIFY2(fs::file_size(file) < 64 * 1024, std::to_string(fs::file_size(file)).c_str());
            job.ranks.push_back(rank);
        }
        const fs::path merged = dir.filePath("whatever.json").toStdString();
        QVERIFY(summary::writeJobSummary(merged, job).ok());
        const auto read = summary::readSummary(merged);
        QVERIFY(read.ok());
        QVERIFY(read.value() == job);
    }

    void mergeIsAssociative()
    {
        auto rank0 = summaryOf(realRank(0));
        auto rank1 = summaryOf(realRank(1));
        auto other = rank1;
        other.figures.rank = 2;
        other.figures.file = "elsewhere/rank-2.json.gz";
        const summary::JobSummary a{{rank1}}, b{{other, rank0}}, c{{rank0}};
        const auto left = summary::merge({summary::merge({a, b}), c});
        const auto right = summary::merge({a, summary::merge({b, c})});
        const auto flat = summary::merge({c, b, a});
        QVERIFY(left == right);
        QVERIFY(left == flat);
        // rank0 came twice and is kept once; ranks in order.
        QCOMPARE(left.ranks.size(), 3u);
        QCOMPARE(left.ranks[0].figures.rank, 0);
        QCOMPARE(left.ranks[1].figures.rank, 1);
        QCOMPARE(left.ranks[2].figures.rank, 2);
        // The same rank number from another file is not a duplicate: the job says so.
        auto twin = rank1;
        twin.figures.file = "copy/rank-1.json.gz";
        const auto twins = summary::merge({a, {{twin}}});
        QCOMPARE(twins.ranks.size(), 2u);
        std::vector<RankFigures> figures;
        for (const auto &r : twins.ranks)
            figures.push_back(r.figures);
        const auto job = combineRanks(figures);
        QVERIFY(!job.problems.empty());
    }

    void summariesGiveTheFiguresOfTheTraces_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addRow("two real ranks") << QString::fromStdString(kRealRanks.string());
        QTest::addRow("8 generated ranks") << QString::fromStdString((kJobs / "job8").string());
    }

    void summariesGiveTheFiguresOfTheTraces()
    {
        QFETCH(QString, folder);
        const auto traces = jobTraces(folder.toStdString());
        QVERIFY(traces.size() >= 2);
        const auto inProcess = summariseJob(traces);
        QVERIFY(inProcess.ok());

        QTemporaryDir dir;
        std::vector<fs::path> files;
        summary::JobSummary all;
        for (std::size_t i = 0; i < traces.size(); ++i) {
            const auto rank = summaryOf(traces[i]);
            files.push_back(dir.filePath(QString("%1.summary.json").arg(i)).toStdString());
            QVERIFY(summary::writeRankSummary(files.back(), rank).ok());
            all.ranks.push_back(rank);
        }
        // Each rank's own file, a folder of them, and one merged job: the same job.
        ProgressReporter progress;
        const StopToken stop;
        const auto fromFiles = summary::loadJob(files, {}, progress, stop);
        QVERIFY(fromFiles.ok());
        QVERIFY(figuresOnly(fromFiles.value()) == inProcess.value());
        for (const auto &rank : fromFiles.value().ranks) {
            const auto checksum = trace::fileChecksum(rank.file);
            QVERIFY(checksum.ok());
            QCOMPARE(rank.summarisedBytes, checksum.value().bytes);
            QCOMPARE(rank.summarisedCrc32, checksum.value().crc32);
        }
        const auto folderFiles = jobFiles({fs::path(dir.path().toStdString())});
        QVERIFY(folderFiles.ok());
        QCOMPARE(folderFiles.value().size(), traces.size());
        const auto fromFolder = summary::loadJob(folderFiles.value(), {}, progress, stop);
        QVERIFY(fromFolder.ok());
        QVERIFY(figuresOnly(fromFolder.value()) == inProcess.value());
        const fs::path merged = dir.filePath("merged/job.json").toStdString();
        fs::create_directories(merged.parent_path());
        QVERIFY(summary::writeJobSummary(merged, summary::merge({all})).ok());
        QVERIFY(summary::isSummaryFile(merged));
        const auto fromMerged = summary::loadJob({merged}, {}, progress, stop);
        QVERIFY(fromMerged.ok());
        QVERIFY(figuresOnly(fromMerged.value()) == inProcess.value());
        QVERIFY(!inProcess.value().collectives.empty());
    }

    void summaryStandsForItsTrace()
    {
        // A summary of rank 0 beside the traces of ranks 0 and 1: rank 0 is not counted twice.
        QTemporaryDir dir;
        const fs::path file = dir.filePath("rank0.summary.json").toStdString();
        QVERIFY(summary::writeRankSummary(file, summaryOf(realRank(0))).ok());
        ProgressReporter progress;
        const StopToken stop;
        const auto mixed = summary::loadRanks({file, realRank(0), realRank(1)}, {}, progress, stop);
        QVERIFY(mixed.ok());
        QCOMPARE(mixed.value().size(), 2u);
        const auto job = summary::loadJob({file, realRank(0), realRank(1)}, {}, progress, stop);
        const auto traced = summariseJob({realRank(0), realRank(1)});
        QVERIFY(job.ok() && traced.ok());
        QVERIFY(figuresOnly(job.value()) == traced.value());
        QCOMPARE(job.value().problems, traced.value().problems); // nothing said of the summary
    }

    void aTraceChangedSinceItsSummaryIsReadAgain_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("says");
        // The same length with other contents: only the CRC-32 tells.
        QTest::addRow("same size") << "\"dur\": 1000}" << "\"dur\": 2000}" << "has CRC-32";
        // A byte longer: the size tells.
        QTest::addRow("other size") << "\"dur\": 1000}" << "\"dur\": 10000}" << "bytes) of the trace rank 2's summary";
        QTest::addRow("unchanged") << "" << "" << "";
    }
    void aTraceChangedSinceItsSummaryIsReadAgain()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const fs::path trace = dir.filePath("rank2.json").toStdString();
        auto text = readText(PYROMETER_FIXTURES_DIR "/traces/collective_args.json");
        writeText(trace, text);
        const fs::path summaryFile = dir.filePath("rank2.summary.json").toStdString();
        QVERIFY(summary::writeRankSummary(summaryFile, summaryOf(trace)).ok());
        if (!from.isEmpty()) {
            const auto at = text.find(from.toStdString());
            QVERIFY(at != std::string::npos);
            text.replace(at, std::size_t(from.size()), to.toStdString());
            writeText(trace, text);
        }
        ProgressReporter progress;
        const StopToken stop;
        const auto job = summary::loadJob({summaryFile, trace}, {}, progress, stop);
        QVERIFY(job.ok());
        QCOMPARE(job.value().ranks.size(), std::size_t(1));
        const auto traced = summariseJob({trace});
        QVERIFY(traced.ok());
        // The figures are the trace's as it is now: ProfilerStep#1 lasts 2000 or 10000 µs there.
        QCOMPARE(job.value().ranks[0].steps, traced.value().ranks[0].steps);
        std::string notes;
        for (const auto &problem : job.value().problems)
            notes += problem + "\n";
        if (says.isEmpty()) {
            QVERIFY2(notes.find("summarised again") == std::string::npos, notes.c_str());
            QVERIFY(job.value().ranks[0].summarisedBytes > 0); // read from the summary
            return;
        }
        QVERIFY2(notes.find(trace.string()) != std::string::npos, notes.c_str());
        QVERIFY2(notes.find(says.toStdString()) != std::string::npos, notes.c_str());
        QVERIFY2(notes.find("the trace was summarised again and the summary left out") != std::string::npos, notes.c_str());
        QCOMPARE(job.value().ranks[0].summarisedBytes, std::uint64_t(0)); // summarised here
    }

    void badSummariesAreNamed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::addRow("not json") << "{\"kind\": \"pyrometer-rank-summary\", "
                                  << "not valid JSON";
        QTest::addRow("no kind") << "{\"format\": 1}"
                                 << "no \"kind\"";
        QTest::addRow("other kind") << "{\"kind\": \"pyrometer-notes\", \"format\": 1}"
                                    << "kind \"pyrometer-notes\"";
        QTest::addRow("newer") << "{\"kind\": \"pyrometer-job-summary\", \"format\": 7, \"ranks\": []}"
                               << "newer";
        QTest::addRow("no ranks") << "{\"kind\": \"pyrometer-job-summary\", \"format\": 1}"
                                  << "damaged";
        QTest::addRow("wrong type")
            << "{\"kind\": \"pyrometer-rank-summary\", \"format\": 1, \"rank\": {\"figures\": 3}}"
            << "damaged";
        // A float where an integer is read: cast beyond the type's range, undefined (found by
        // tests/fuzz/fuzz_summary.cpp).
        QTest::addRow("float format") << "{\"kind\": \"pyrometer-job-summary\", \"format\": 1e300, \"ranks\": []}"
                                      << "a damaged summary (1e+300 where an integer belongs)";
        auto rank = QString::fromStdString(summary::rankSummaryJson({}));
        QVERIFY(rank.contains("\"compute_ns\":0,"));
        QTest::addRow("float time") << rank.replace("\"compute_ns\":0,", "\"compute_ns\":1.7e38,")
                                    << "a damaged summary (1.7e+38 where an integer belongs)";
    }

    void badSummariesAreNamed()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const fs::path file = dir.filePath("bad.summary.json").toStdString();
        writeText(file, text.toStdString());
        const auto read = summary::readSummary(file);
        QVERIFY(!read.ok());
        const auto &message = read.error().message;
        QVERIFY2(message.find(file.string()) == 0, message.c_str());
        QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
        ProgressReporter progress;
        const StopToken stop;
        const auto job = summary::loadJob({file}, {}, progress, stop);
        QVERIFY(!job.ok());
        QCOMPARE(job.error().message, message);
    }

    void processGroupsRoundTripAndOldSummariesRead()
    {
        // A rank with a call in group tp (1) of ranks 0 and 1, seq 7, and one without a group.
        RankSummary rank;
        rank.figures.rank = 0;
        rank.figures.worldSize = 2;
        rank.figures.file = "rank-0.json";
        CollectiveCall grouped{"all_reduce", 64, 2, 100, 200, true};
        grouped.group = "1";
        grouped.groupDesc = "tp";
        grouped.groupRanks = "[0, 1]";
        grouped.sequence = 7;
        rank.figures.collectives = {grouped, {"broadcast", 8, -1, 300, 400, true}};
        QTemporaryDir dir;
        const fs::path file = dir.filePath("rank-0.summary.json").toStdString();
        QVERIFY(summary::writeRankSummary(file, rank).ok());
        const auto read = summary::readSummary(file);
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
        QVERIFY(read.value().ranks.front() == rank);

        // A summary written before groups: six columns a call, no "collective_groups".
        std::ifstream in(file, std::ios::binary);
        std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        for (const std::string cut : {",0,7]", ",-1,-1]"})
            text.replace(text.find(cut), cut.size(), "]");
        const std::string groups = R"("collective_groups":[["1","tp","[0, 1]"]],)";
        QVERIFY(text.find(groups) != std::string::npos);
        text.erase(text.find(groups), groups.size());
        writeText(file, text);
        const auto old = summary::readSummary(file);
        QVERIFY2(old.ok(), old.ok() ? "" : old.error().message.c_str());
        const auto &calls = old.value().ranks.front().figures.collectives;
        QCOMPARE(calls.size(), std::size_t(2));
        QCOMPARE(calls[0].name, std::string("all_reduce"));
        QVERIFY(!calls[0].hasGroup());
        QCOMPARE(calls[0].sequence, std::int64_t(-1));
        QCOMPARE(calls[1].endNs, std::int64_t(400));
    }

    void recognisedByContent()
    {
        QTemporaryDir dir;
        const fs::path merged = dir.filePath("job.json").toStdString();
        QVERIFY(summary::writeJobSummary(merged, {}).ok());
        QVERIFY(summary::isSummaryFile(merged));
        const fs::path pretty = dir.filePath("pretty.json").toStdString();
        writeText(pretty, "{\n  \"kind\": \"pyrometer-job-summary\",\n  \"format\": 1,\n  \"ranks\": []\n}\n");
        QVERIFY(summary::isSummaryFile(pretty));
        const fs::path notes = dir.filePath("notes.json").toStdString();
        writeText(notes, "{\"kind\": \"other\", \"text\": \"pyrometer-job-summary\"}");
        QVERIFY(!summary::isSummaryFile(notes));
        QVERIFY(!summary::isSummaryFile(realRank(0)));
        QVERIFY(summary::isSummaryFile(dir.filePath("anything.summary.json").toStdString()));
    }
};

QTEST_GUILESS_MAIN(TestSummary)
#include "tst_summary.moc"
