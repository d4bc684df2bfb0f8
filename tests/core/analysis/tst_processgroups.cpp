// Collectives per process group: a hand-written 4-rank job with tensor-parallel groups {0,1},
// {2,3}, data-parallel groups {0,2}, {1,3} and the world group, all running all-reduces of the
// same size, matched, tabled and waited on per group (figures worked out by hand below); a job
// whose traces name no groups says so; and job loading that keeps going past a rank that fails
// and keeps the bytes in flight within its budget.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/collectivematch.h"
#include "core/analysis/job.h"
#endif

#include <QTemporaryDir>

#include <condition_variable>
#include <mutex>

using namespace pyrometer;
using namespace pyrometer::analysis;

namespace {

constexpr std::int64_t kFloats = 262'144;          // per all-reduce: 262,144 x 4 bytes = 1 MiB
constexpr std::int64_t kBytes = kFloats * 4;       // 1,048,576
constexpr std::int64_t kRank3SkewUs = 50'000;      // rank 3's clock runs 50 ms ahead

struct Group {
    const char *name;
    const char *desc;
    const char *ranks;
    int size;
};
constexpr Group kWorld{"0", "default_pg", "[0, 1, 2, 3]", 4};
constexpr Group kTp0{"1", "tp", "[0, 1]", 2};
constexpr Group kTp1{"2", "tp", "[2, 3]", 2};
constexpr Group kDp0{"3", "dp", "[0, 2]", 2};
constexpr Group kDp1{"4", "dp", "[1, 3]", 2};

// An NCCL all-reduce kernel of 1 MiB as torch 2.x writes it, from start to end (µs).
std::string allReduce(const Group &g, std::int64_t startUs, std::int64_t endUs)
{
    return "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", \"pid\": 0,"
           " \"tid\": 7, \"ts\": " + std::to_string(startUs) + ", \"dur\": " + std::to_string(endUs - startUs) +
           ", \"args\": {\"device\": 0, \"stream\": 7, \"Collective name\": \"allreduce\", \"In msg nelems\": " +
           std::to_string(kFloats) + ", \"Out msg nelems\": " + std::to_string(kFloats) +
           ", \"dtype\": \"Float\", \"Group size\": " + std::to_string(g.size) + ", \"Process Group Name\": \"" +
           g.name + "\", \"Process Group Description\": \"" + g.desc + "\", \"Process Group Ranks\": \"" + g.ranks +
           "\", \"Seq\": 1}}";
}

struct Call {
    Group group;
    std::int64_t startUs;
    std::int64_t endUs;
};

void writeRank(const std::filesystem::path &file, int rank, const std::vector<Call> &calls, std::int64_t skewUs)
{
    std::string events;
    for (const auto &c : calls)
        events += (events.empty() ? "" : ",\n") + allReduce(c.group, c.startUs + skewUs, c.endUs + skewUs);
    std::ofstream(file) << "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " << rank
                        << ", \"world_size\": 4},\n \"traceEvents\": [\n" << events << "\n]}\n";
}

// The job, on one clock (µs) before rank 3's skew; every call of a group ends together:
//   tp {0,1}:   rank 0 [1000, 11000]   rank 1 [3000, 11000]                  rank 0 waits 2000
//   tp {2,3}:   rank 2 [1000, 21000]   rank 3 [1500, 21000]                  rank 2 waits 500
//   dp {0,2}:   rank 0 [30000, 50000]  rank 2 [34000, 50000]                 rank 0 waits 4000
//   dp {1,3}:   rank 1 [30000, 40000]  rank 3 [31000, 40000]                 rank 1 waits 1000
//   world:      ranks 0-3 from 60000, 62000, 61000, 65000 to 70000           waits 5000, 3000, 4000, 0
std::vector<std::filesystem::path> writeJob(const std::filesystem::path &dir, bool world)
{
    std::vector<std::vector<Call>> calls{
        {{kTp0, 1000, 11000}, {kDp0, 30000, 50000}},
        {{kTp0, 3000, 11000}, {kDp1, 30000, 40000}},
        {{kTp1, 1000, 21000}, {kDp0, 34000, 50000}},
        {{kTp1, 1500, 21000}, {kDp1, 31000, 40000}},
    };
    if (world) {
        const std::int64_t starts[] = {60000, 62000, 61000, 65000};
        for (int r = 0; r < 4; ++r)
            calls[r].push_back({kWorld, starts[r], 70000});
    }
    std::vector<std::filesystem::path> files;
    for (int r = 0; r < 4; ++r) {
        files.push_back(dir / ("rank-" + std::to_string(r) + ".json"));
        writeRank(files.back(), r, calls[r], r == 3 ? kRank3SkewUs : 0);
    }
    return files;
}

const CollectiveRow *rowOf(const JobFigures &job, const std::string &group)
{
    for (const auto &row : job.collectives)
        if (row.group == group)
            return &row;
    return nullptr;
}

RankFigures rankWith(int rank, std::vector<CollectiveCall> calls)
{
    RankFigures r;
    r.rank = rank;
    r.worldSize = 2;
    r.file = "rank-" + std::to_string(rank) + ".json";
    r.collectives = std::move(calls);
    return r;
}

} // namespace

class TestProcessGroups : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void groupsAreReadFromTheTrace()
    {
        QTemporaryDir dir;
        const auto files = writeJob(dir.path().toStdString(), true);
        auto job = summariseJob(files);
        QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
        const auto &rank0 = job.value().ranks[0];
        QCOMPARE(rank0.collectives.size(), std::size_t(3));
        const auto &tp = rank0.collectives[0];
        QCOMPARE(tp.name, std::string("all_reduce"));
        QCOMPARE(tp.bytes, kBytes);
        QCOMPARE(tp.group, std::string("1"));
        QCOMPARE(tp.groupDesc, std::string("tp"));
        QCOMPARE(tp.groupRanks, std::string("[0, 1]"));
        QCOMPARE(tp.sequence, std::int64_t(1));
        QCOMPARE(processGroupLabel(tp.group, tp.groupDesc), std::string("tp (1)"));
        QVERIFY(job.value().notes.empty());
    }

    void collectivesAreTabledPerGroup()
    {
        QTemporaryDir dir;
        auto job = summariseJob(writeJob(dir.path().toStdString(), true));
        QVERIFY(job.ok());
        const auto &j = job.value();
        QVERIFY2(j.problems.empty(), j.problems.empty() ? "" : j.problems.front().c_str());
        // Five groups, one row each: the same collective and size never merge across groups.
        QCOMPARE(j.collectives.size(), std::size_t(5));
        struct Expected {
            const char *group;
            const char *members;
            int size;
            std::uint64_t calls;
            std::int64_t timeUs; // summed durations from the table above
        };
        // Largest time first: tp {2,3} 20000 + 19500; dp {0,2} 20000 + 16000; world 10000 + 8000 +
        // 9000 + 5000; dp {1,3} 10000 + 9000; tp {0,1} 10000 + 8000.
        const Expected expected[] = {{"2", "2-3", 2, 2, 39500},
                                     {"3", "0, 2", 2, 2, 36000},
                                     {"0", "0-3", 4, 4, 32000},
                                     {"4", "1, 3", 2, 2, 19000},
                                     {"1", "0-1", 2, 2, 18000}};
        for (std::size_t i = 0; i < std::size(expected); ++i) {
            const auto &row = j.collectives[i];
            const auto &e = expected[i];
            QCOMPARE(row.group, std::string(e.group));
            QCOMPARE(row.groupRanks, std::string(e.members));
            QCOMPARE(row.groupSize, e.size);
            QCOMPARE(row.calls, e.calls);
            QCOMPARE(row.timeNs, e.timeUs * 1000);
            // algbw = bytes x calls / time (bytes per ns is GB/s); busbw x 2(n-1)/n for all_reduce.
            const double algbw = double(kBytes) * double(e.calls) / double(e.timeUs * 1000);
            QCOMPARE(row.algbwGBps, algbw);
            QCOMPARE(row.busbwGBps, algbw * 2.0 * (e.size - 1) / e.size);
        }
        // The world's: 1,048,576 x 4 / 32,000,000 ns = 0.131072 GB/s, busbw x 1.5 = 0.196608.
        QVERIFY(qFuzzyCompare(rowOf(j, "0")->algbwGBps, 0.131072));
        QVERIFY(qFuzzyCompare(rowOf(j, "0")->busbwGBps, 0.196608));
        // tp {0,1}: 2,097,152 / 18,000,000 ns; a group of two: busbw = algbw (2 x 1 / 2).
        QVERIFY(qFuzzyCompare(rowOf(j, "1")->busbwGBps, 2'097'152.0 / 18'000'000.0));
        // Per rank: rank 0 ran in tp {0,1}, dp {0,2} and the world.
        const auto rank0Rows = std::count_if(j.collectivesByRank.begin(), j.collectivesByRank.end(),
                                             [](const CollectiveRow &r) { return r.rank == 0; });
        QCOMPARE(rank0Rows, 3);
    }

    void waitsAreMeasuredAmongEachGroupsMembers_data()
    {
        QTest::addColumn<bool>("world");
        QTest::addColumn<QString>("anchor");
        QTest::addColumn<QList<qint64>>("waitsUs");
        // The world group aligns every rank at once. Waits: rank 0 2000 (tp) + 4000 (dp) + 5000
        // (world); rank 1 0 + 1000 + 3000; rank 2 500 + 0 + 4000; rank 3 0.
        QTest::addRow("with a world call")
            << true << "the end of a collective every rank ran: all_reduce of 1.00 MiB seq 1 in group default_pg (0); 5 of 5 calls"
            << QList<qint64>{11'000, 4'000, 4'500, 0};
        // No call runs on every rank: tp {0,1} aligns rank 1 with rank 0, dp {0,2} rank 2, dp
        // {1,3} rank 3 (through rank 1). Waits: rank 0 2000 + 4000; rank 1 0 + 1000; rank 2 500.
        QTest::addRow("tp and dp only") << false
                                        << "the ends of collectives that link the ranks through their process groups"
                                        << QList<qint64>{6'000, 1'000, 500, 0};
    }

    void waitsAreMeasuredAmongEachGroupsMembers()
    {
        QFETCH(bool, world);
        QFETCH(QString, anchor);
        QFETCH(QList<qint64>, waitsUs);
        QTemporaryDir dir;
        auto job = summariseJob(writeJob(dir.path().toStdString(), world));
        QVERIFY(job.ok());
        const auto &j = job.value();
        // Rank 3's clock is 50 ms ahead.
        QCOMPARE(j.clockOffsetNs, (std::vector<std::int64_t>{0, 0, 0, -kRank3SkewUs * 1000}));
        QVERIFY2(j.anchor.rfind(anchor.toStdString(), 0) == 0, j.anchor.c_str());
        const auto calls = world ? "; 5 of 5 calls" : "; 4 of 4 calls"; // every matched call ends together
        QVERIFY2(j.anchor.find(calls) != std::string::npos, j.anchor.c_str());
        std::vector<std::int64_t> expected;
        for (const auto us : waitsUs)
            expected.push_back(us * 1000);
        QCOMPARE(j.waitNs, expected);
    }

    void sequenceNumbersMatchCallsOfTracesThatStartApart()
    {
        // Rank 1's trace starts after the group's first call: by order, rank 0's first call would
        // pair with rank 1's first (seq 2); by sequence number, seq 2 pairs with seq 2. Both end
        // together at 2000 and 4000 µs; rank 1 arrives 300 µs after rank 0 at seq 2.
        auto call = [](std::int64_t seq, std::int64_t startUs, std::int64_t endUs) {
            CollectiveCall c{"all_reduce", 64, 2, startUs * 1000, endUs * 1000, true};
            c.group = "1";
            c.groupRanks = "[0, 1]";
            c.sequence = seq;
            return c;
        };
        const auto job = combineRanks({rankWith(0, {call(1, 0, 1000), call(2, 1500, 4000)}),
                                       rankWith(1, {call(2, 1800, 4000)})});
        QCOMPARE(job.clockOffsetNs, (std::vector<std::int64_t>{0, 0}));
        QCOMPARE(job.waitNs, (std::vector<std::int64_t>{300'000, 0}));
    }

    void aJobWithoutGroupsSaysSo()
    {
        const auto job = combineRanks({rankWith(0, {{"all_reduce", 64, 2, 0, 1'000'000, true}}),
                                       rankWith(1, {{"all_reduce", 64, 2, 200'000, 1'000'000, true}})});
        QCOMPARE(job.notes.size(), std::size_t(1));
        QVERIFY2(job.notes[0].find("collectives carry no process group: matched by name and size only") == 0,
                 job.notes[0].c_str());
        // Matched as before: rank 0 waits 200 µs.
        QCOMPARE(job.waitNs, (std::vector<std::int64_t>{200'000, 0}));
        QCOMPARE(job.collectives.size(), std::size_t(1));
        QCOMPARE(job.collectives[0].groupSize, 2);
    }

    void groupMembersText()
    {
        QCOMPARE(groupMembers("[0, 1, 2, 3]"), (GroupMembers{{0, 1, 2, 3}, true}));
        QCOMPARE(groupMembers("[4,6]"), (GroupMembers{{4, 6}, true}));
        QCOMPARE(groupMembers("[0, 1, ..., ]").complete, false);
        QCOMPARE(membersText("[0, 1, 2, 3, 8]"), std::string("0-3, 8"));
        QCOMPARE(processGroupLabel("5", "undefined"), std::string("5"));
        CollectiveCall call;
        call.groupRanks = "[1, 3, 5]";
        QCOMPARE(effectiveGroupSize(call, 8), 3);
        call.groupRanks = "[0, 1, ...]";
        QCOMPARE(effectiveGroupSize(call, 8), 8);
    }

    void aRankThatFailsIsNamedAndTheOthersLoad()
    {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        auto files = writeJob(root, true);
        // Rank 2's file cut in the middle of an event.
        std::ofstream(files[2]) << "{\"traceEvents\": [ {\"ph\": \"X\", \"name\": ";
        auto job = summariseJob(files, {2});
        QVERIFY2(job.ok(), job.ok() ? "" : job.error().message.c_str());
        const auto &j = job.value();
        QCOMPARE(j.ranks.size(), std::size_t(3));
        QCOMPARE(j.failedRanks.size(), std::size_t(1));
        QCOMPARE(j.failedRanks[0].rank, 2); // from its name
        QCOMPARE(j.failedRanks[0].file, files[2].string());
        QVERIFY2(j.failedRanks[0].message.find("rank-2.json") != std::string::npos, j.failedRanks[0].message.c_str());
        const bool said = std::any_of(j.problems.begin(), j.problems.end(), [](const std::string &p) {
            return p.rfind("not loaded: ", 0) == 0 && p.find("rank-2.json") != std::string::npos;
        });
        QVERIFY(said);

        // Every rank failing is an error naming the first.
        for (const auto &file : files)
            std::ofstream(file) << "not a trace";
        auto none = summariseJob(files);
        QVERIFY(!none.ok());
        QVERIFY2(none.error().message.find("rank-0.json") != std::string::npos, none.error().message.c_str());
        QVERIFY2(none.error().message.find("the other 3 ranks failed too") != std::string::npos,
                 none.error().message.c_str());
    }

    void loadsStayWithinTheMemoryBudget()
    {
        // Four ranks of about the same size and a fifth larger than the budget, four threads, a
        // budget of two and a half ranks: at most two load at once, and the large one alone.
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        auto files = writeJob(root, true);
        files.push_back(root / "rank-big.json");
        {
            std::vector<Call> calls;
            for (int i = 0; i < 40; ++i)
                calls.push_back({kWorld, i * 100'000, i * 100'000 + 50'000});
            writeRank(files.back(), 3, calls, 0);
        }
        const auto each = jobLoadBytes(files[0]);
        QVERIFY(each > 0);
        for (int r = 1; r < 4; ++r)
            QVERIFY(jobLoadBytes(files[r]) <= each + each / 10);
        JobOptions options;
        options.threads = 4;
        options.memoryBudgetBytes = each * 5 / 2;
        QVERIFY(jobLoadBytes(files.back()) > options.memoryBudgetBytes);

        // A load that starts holds on until another has had the chance to start or to be told to
        // wait for memory, so that loads overlap whenever the scheduler lets them.
        std::mutex mutex;
        std::condition_variable changed;
        int running = 0;
        int mostRunning = 0;
        int started = 0;
        bool someoneWaited = false;
        std::vector<std::string> overBudget;
        options.onLoadEvent = [&](const RankLoadEvent &event) {
            std::unique_lock lock(mutex);
            switch (event.kind) {
            case RankLoadEvent::Kind::Started:
                ++running;
                ++started;
                mostRunning = std::max(mostRunning, running);
                if (running > 1 && event.bytesInFlight > options.memoryBudgetBytes)
                    overBudget.push_back(std::to_string(event.file));
                if (event.file == files.size() - 1 && running != 1)
                    overBudget.push_back("the large rank did not load alone");
                changed.notify_all();
                // A safety net against a hang, not a timing: the condition is what releases it.
                changed.wait_for(lock, std::chrono::seconds(20),
                                 [&] { return someoneWaited || started == int(files.size()) || running == options.threads; });
                break;
            case RankLoadEvent::Kind::Finished:
                --running;
                break;
            case RankLoadEvent::Kind::WaitingForMemory:
                someoneWaited = true;
                changed.notify_all();
                break;
            }
        };
        ProgressReporter progress;
        auto ranks = summariseRanks(files, options, progress, StopToken());
        QVERIFY(ranks.ok());
        QCOMPARE(ranks.value().size(), files.size());
        QVERIFY(someoneWaited);
        QCOMPARE(mostRunning, 2);
        QVERIFY2(overBudget.empty(), overBudget.empty() ? "" : overBudget.front().c_str());
    }

    void gzipFilesAreReckonedInflated()
    {
        // The gzip trailer's size: a member of 100,000 bytes of JSON compresses to far less.
        const auto file = std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces" / "multirank" / "sampled_rank-0.json.gz";
        const auto onDisk = std::filesystem::file_size(file);
        QVERIFY(jobLoadBytes(file) > 2 * onDisk);
    }
};

QTEST_GUILESS_MAIN(TestProcessGroups)
#include "tst_processgroups.moc"
