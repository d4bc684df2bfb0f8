// The job report from figures made by hand: the straggler's words and evidence, ranks without a
// number, collectives of unknown size, the chart of a large job, problems and clocks.
#include <QtTest>

#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/analysis/job.h"
#include "core/report/jobreport.h"
#include "core/report/reportrender.h"
#include "core/util/format.h"
#endif

#include <QDomDocument>

#include <algorithm>

using namespace pyrometer;

namespace {

constexpr std::int64_t kMs = 1'000'000;

// A rank with two steps whose window of 10 ms is compute 4 + hidden 1 + exposed 2 + memory 1 +
// idle 2 (ms), times scale for compute.
analysis::RankFigures rankOf(int number, const std::string &file, double scale = 1.0)
{
    analysis::RankFigures rank;
    rank.rank = number;
    rank.file = file;
    rank.steps = {{"ProfilerStep#1", 0, 5 * kMs, 0, 0}, {"ProfilerStep#2", 5 * kMs, 5 * kMs, 0, 0}};
    rank.stepTimeUs = 5000;
    rank.windowStartNs = 0;
    rank.computeOnlyNs = std::int64_t(4 * kMs * scale);
    rank.hiddenCommunicationNs = rank.overlapNs = 1 * kMs;
    rank.exposedCommunicationNs = 2 * kMs;
    rank.memoryOnlyNs = rank.memoryNs = 1 * kMs;
    rank.idleNs = 2 * kMs;
    rank.windowEndNs =
        rank.computeOnlyNs + rank.hiddenCommunicationNs + rank.exposedCommunicationNs + rank.memoryOnlyNs + rank.idleNs;
    rank.computeNs = rank.computeOnlyNs + rank.overlapNs;
    rank.communicationNs = rank.hiddenCommunicationNs + rank.exposedCommunicationNs;
    rank.overlapPct = 100.0 * double(rank.overlapNs) / double(rank.communicationNs);
    return rank;
}

analysis::JobFigures threeRanks()
{
    analysis::JobFigures job;
    job.ranks = {rankOf(0, "/jobs/a/rank-0.json.gz"), rankOf(1, "/jobs/a/rank-1.json.gz", 2.0),
                 rankOf(-1, "/jobs/a/worker.json")};
    job.worldSize = 4;
    job.backend = "nccl";
    job.stragglers = {
        {1, 5000, 2500, 2.0, "compute 5.00 ms/step against a median of 2.50 ms/step of the other ranks (2.00x)"}};
    job.waitNs = {5 * kMs, 0, 1 * kMs};
    job.clockOffsetNs = {0, 3000, -2000};
    job.anchor = "the end of the first collective every rank ran: all_reduce #1";
    job.collectives = {{"all_reduce", 1 << 20, 4, -1, 6, 3 * kMs, 2.097152, 3.145728},
                       {"barrier", -1, 4, -1, 3, 1 * kMs, 0, 0}};
    job.problems = {"3 of 4 ranks present; missing: 2",
                    "worker.json: no rank number (no distributedInfo, none in the file name)"};
    return job;
}

const report::Section *sectionWithId(const std::vector<report::Section> &sections, const std::string &id)
{
    const auto found = std::find_if(sections.begin(), sections.end(), [&](const auto &s) { return s.id == id; });
    return found == sections.end() ? nullptr : &*found;
}

} // namespace

class TestJobReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stragglerInWordsWithTheOthersWait()
    {
        const auto sentences = report::stragglerSentences(threeRanks());
        QCOMPARE(sentences.size(), std::size_t(1));
        // The others are ranks 0 and the one without a number: 5 + 1 ms.
        QCOMPARE(
            QString::fromStdString(sentences.front()),
            QString::fromUtf8(
                "Straggler: rank 1 \u2014 compute 5.00 ms/step against a median of 2.50 ms/step of the other ranks "
                "(2.00x); the others waited 6.00 ms in collectives."));
    }

    void noStragglerNamesTheFastestAndSlowest()
    {
        auto job = threeRanks();
        job.stragglers.clear();
        const auto sentences = report::stragglerSentences(job);
        QCOMPARE(sentences.size(), std::size_t(1));
        const auto text = QString::fromStdString(sentences.front());
        QVERIFY2(text.startsWith("No straggler: "), qPrintable(text));
        // Ranks 0 and worker.json compute 2.50 ms a step, rank 1 4.50 ms; ties go to the first.
        QVERIFY2(text.contains("from 2.50 ms (rank 0) to 4.50 ms (rank 1)"), qPrintable(text));

        job.ranks.resize(1);
        QVERIFY(QString::fromStdString(report::stragglerSentences(job).front()).contains("one rank"));
    }

    void chartBarsAreTheWindowsPartition()
    {
        const auto job = threeRanks();
        const auto chart = report::rankChart(job);
        QCOMPARE(chart.bars.size(), std::size_t(3));
        QCOMPARE(chart.bars[0].label, std::string("rank 0"));
        QCOMPARE(chart.bars[2].label, std::string("worker.json"));
        QCOMPARE(chart.seriesColors.size(), chart.seriesNames.size());
        for (std::size_t i = 0; i < job.ranks.size(); ++i) {
            double sum = 0;
            for (const auto v : chart.bars[i].values)
                sum += v;
            QCOMPARE(sum, double(job.ranks[i].windowNs()) / 1e6);
        }
        QCOMPARE(chart.bars[1].values.front(), 8.0); // rank 1 computes twice as long alone
    }

    void sectionsSayEverything()
    {
        const auto job = threeRanks();
        const auto sections = report::jobSections(job, "j-");
        for (const char *id : {"j-job", "j-ranks", "j-stragglers", "j-collectives", "j-problems"})
            QVERIFY2(sectionWithId(sections, id), id);

        const auto *ranks = sectionWithId(sections, "j-ranks");
        QCOMPARE(ranks->images.size(), std::size_t(1));
        QCOMPARE(ranks->tables.size(), std::size_t(1));
        QCOMPARE(ranks->tables[0].rows.size(), std::size_t(3));
        QCOMPARE(ranks->tables[0].rows[2][0], std::string("?")); // no rank number
        QCOMPARE(ranks->tables[0].rows[0][8], std::string("33.3 %"));

        const auto *stragglers = sectionWithId(sections, "j-stragglers");
        QCOMPARE(stragglers->tables.size(), std::size_t(1));
        QCOMPARE(stragglers->tables[0].rows.size(), std::size_t(1));
        QCOMPARE(stragglers->tables[0].rows[0][0], std::string("1"));
        QCOMPARE(stragglers->tables[0].rows[0][3], std::string("2.00x"));
        QCOMPARE(stragglers->tables[0].rows[0][4], formatDuration(6 * kMs));

        // A collective of unknown size has no bandwidth, not a zero one.
        const auto &collectives = sectionWithId(sections, "j-collectives")->tables.at(0);
        QCOMPARE(collectives.rows.size(), std::size_t(2));
        QCOMPARE(collectives.rows[0][1], formatBytes(1 << 20));
        QCOMPARE(collectives.rows[0][6], std::string("3.15"));
        QCOMPARE(collectives.rows[1][1], std::string("unknown"));
        QCOMPARE(collectives.rows[1][5], std::string("-"));

        const auto *problems = sectionWithId(sections, "j-problems");
        QCOMPARE(problems->paragraphs.size(), job.problems.size() + 1);
        QCOMPARE(problems->paragraphs.back(), report::anchorSentence(job));
        QVERIFY(problems->paragraphs.back().find("all_reduce #1") != std::string::npos);

        const auto *summary = sectionWithId(sections, "j-job");
        QCOMPARE(summary->paragraphs, report::stragglerSentences(job));
        QVERIFY(std::any_of(summary->facts.begin(), summary->facts.end(),
                            [](const auto &f) { return f.label == "Ranks" && f.value == "3 of a world of 4"; }));
    }

    void svgIsWellFormed()
    {
        const auto svg = report::renderSvg(report::rankChart(threeRanks()));
        QDomDocument document;
        QVERIFY(document.setContent(QByteArray::fromStdString(svg)));
        QCOMPARE(document.documentElement().tagName(), "svg");
    }

    // Beyond a bar chart's worth of ranks, one column per rank, averaged when they are more
    // than the report's columns.
    void largeJobsGetColumns()
    {
        analysis::JobFigures job;
        for (int r = 0; r < 200; ++r)
            job.ranks.push_back(rankOf(r, "rank-" + std::to_string(r) + ".json.gz", r == 17 ? 1.5 : 1.0));
        job.waitNs.assign(200, 0);
        job.clockOffsetNs.assign(200, 0);
        const auto sections = report::jobSections(job, "");
        const auto *ranks = sectionWithId(sections, "ranks");
        QVERIFY(ranks);
        QCOMPARE(ranks->images.size(), std::size_t(1));
        QVERIFY2(ranks->images[0].caption.rfind("One column per rank", 0) == 0, ranks->images[0].caption.c_str());

        const auto every = report::rankColumnChart(job, 300);
        QCOMPARE(every.columns.size(), std::size_t(200));
        QCOMPARE(every.itemsPerColumn, std::size_t(1));
        QCOMPARE(every.columns[17].values.front(), 6.0);
        QCOMPARE(every.columns[17].max, 0.0);

        const auto averaged = report::rankColumnChart(job, 100);
        QCOMPARE(averaged.columns.size(), std::size_t(100));
        QCOMPARE(averaged.itemsPerColumn, std::size_t(2));
        QCOMPARE(averaged.columns[8].values.front(), 5.0); // ranks 16 and 17: (4 + 6) / 2
        QCOMPARE(averaged.columns[8].max, 12.0);           // rank 17's whole window
    }
};

QTEST_GUILESS_MAIN(TestJobReport)
#include "tst_jobreport.moc"
