// Repeated kernel sequences: small streams written here whose runs are counted by hand, and the
// real BERT and ResNet-50 traces against scripts/make-kerneltype-fixtures.py's naive count.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/kernelsequences.h"
#endif

#include <QObject>
#include <QTemporaryDir>

#include <sstream>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

using Names = std::vector<std::string>;

Names words(const std::string &text)
{
    Names out;
    std::istringstream in(text);
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

Names split(const std::string &text, char separator)
{
    Names out;
    std::size_t from = 0;
    for (auto at = text.find(separator); at != std::string::npos; at = text.find(separator, from)) {
        out.push_back(text.substr(from, at - from));
        from = at + 1;
    }
    out.push_back(text.substr(from));
    return out;
}

// A kernel's duration in µs: A 1, B 2, C 3, D 4, anything else 1.
std::int64_t durationUs(const std::string &name)
{
    if (name.size() == 1 && name[0] >= 'A' && name[0] <= 'D')
        return name[0] - 'A' + 1;
    return 1;
}

// A trace in torch.profiler's Chrome format, written event by event.
class TraceText {
public:
    // The words of names as kernels on device 0, one every 10 µs from startUs; "-" leaves a slot
    // empty and "memcpy" puts a copy there.
    void kernels(int stream, const std::string &names, std::int64_t startUs = 0, int tid = -1)
    {
        auto ts = startUs;
        for (const auto &name : words(names)) {
            if (name == "memcpy")
                add(event("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, tid < 0 ? stream : tid, ts, 1,
                          "\"device\":0,\"stream\":" + std::to_string(stream)));
            else if (name != "-")
                add(event("kernel", name, 0, tid < 0 ? stream : tid, ts, durationUs(name),
                          "\"device\":0,\"stream\":" + std::to_string(stream)));
            ts += 10;
        }
    }

    static std::string event(const std::string &cat, const std::string &name, int pid, int tid, std::int64_t ts,
                             std::int64_t dur, const std::string &args)
    {
        return "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"pid\":" + std::to_string(pid) +
               ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
               ",\"args\":{" + args + "}}";
    }

    void add(const std::string &event) { m_events.push_back(event); }

    Loaded load() const
    {
        std::string text = "{\"traceEvents\":[";
        for (std::size_t i = 0; i < m_events.size(); ++i)
            text += (i ? ",\n" : "\n") + m_events[i];
        text += "]}";
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "sequences.json";
        std::ofstream(path, std::ios::binary) << text;
        auto loaded = trace::loadTrace(path);
        if (!loaded.ok())
            return {};
        return {loaded.value(), buildTraceIndex(*loaded.value())};
    }

private:
    std::vector<std::string> m_events;
};

std::vector<KernelSequence> find(const Loaded &loaded, std::size_t minOccurrences, std::size_t maxLength = 16,
                                 std::size_t minLength = 2)
{
    SequenceOptions options;
    options.minOccurrences = minOccurrences;
    options.maxLength = maxLength;
    options.minLength = minLength;
    return findKernelSequences(*loaded.index, options);
}

std::vector<Names> kernelsOf(const std::vector<KernelSequence> &found)
{
    std::vector<Names> out;
    for (const auto &s : found)
        out.push_back(s.kernels);
    return out;
}

std::vector<std::uint64_t> countsOf(const std::vector<KernelSequence> &found)
{
    std::vector<std::uint64_t> out;
    for (const auto &s : found)
        out.push_back(s.occurrences);
    return out;
}

} // namespace

class TestKernelSequences : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    // A B C three times: "A B C" is kept and its parts "A B", "B C" (as frequent) are dropped.
    void repeatedTriple()
    {
        TraceText text;
        text.kernels(7, "A B C A B C A B C D");
        const auto loaded = text.load();
        QVERIFY(loaded.index);
        const auto found = find(loaded, 3);
        QCOMPARE(found.size(), std::size_t(1));
        const auto &s = found.front();
        QCOMPARE(s.kernels, words("A B C"));
        QCOMPARE(s.occurrences, std::uint64_t(3));
        QCOMPARE(s.device, 0);
        QCOMPARE(s.stream, 7);
        QCOMPARE(s.totalNs, std::int64_t(3 * (1 + 2 + 3) * 1000));
        // A ends 9 µs before B starts, B 8 µs before C: 17 µs inside each occurrence.
        QCOMPARE(s.gapNs, std::int64_t(3 * 17 * 1000));
        QCOMPARE(s.ops, Names(3, std::string()));
    }

    // At two occurrences "B C A" and "C A B" occur too (twice each, without overlap), but they
    // are rotations of the cycle "A B C", which is reported once, from where it first occurs;
    // "A B C A" occurs once (its two places overlap) and "C A" lies in "B C A" as often.
    void twoOccurrences()
    {
        TraceText text;
        text.kernels(7, "A B C A B C A B C D");
        const auto found = find(text.load(), 2);
        QCOMPARE(kernelsOf(found), (std::vector<Names>{words("A B C")}));
        QCOMPARE(countsOf(found), (std::vector<std::uint64_t>{3}));
    }

    // A 12-kernel cycle ten times, entered half-way (after a warm-up kernel): the ten rotations
    // of one length occur 9 or 10 times each, and are one sequence, starting where the stream
    // first ran the cycle (at G); a cycle of another stream and a run that is no rotation of it
    // (the same kernels in another order) stay apart.
    void rotationsAreOneCycle()
    {
        const std::string cycle = "G H I J K L A B C D E F ";
        std::string stream = "W ";
        for (int i = 0; i < 10; ++i)
            stream += cycle;
        TraceText text;
        text.kernels(7, stream);
        text.kernels(8, "A B C D E F G H I J K L A B C D E F G H I J K L A B C D E F G H I J K L");
        text.kernels(9, "A B C x A C B y A B C z A C B w A B C v A C B");
        const auto found = find(text.load(), 3, 12, 12);
        QCOMPARE(kernelsOf(found),
                 (std::vector<Names>{words(cycle), words("A B C D E F G H I J K L")}));
        QCOMPARE(countsOf(found), (std::vector<std::uint64_t>{10, 3}));
        QCOMPARE(found[0].stream, 7);
        QCOMPARE(found[1].stream, 8);
        // Its kernels' time over its ten occurrences: A-D 1-4 µs, the rest 1 µs.
        QCOMPARE(found[0].totalNs, std::int64_t(10 * (1 + 2 + 3 + 4 + 8) * 1000));
        // The cycle twice over (24 kernels, five times) is the same cycle again: left out.
        QCOMPARE(kernelsOf(find(text.load(), 3, 24, 12)), kernelsOf(found));
        const auto triples = kernelsOf(find(text.load(), 3, 3, 3));
        QVERIFY(std::find(triples.begin(), triples.end(), words("A B C")) != triples.end());
        QVERIFY(std::find(triples.begin(), triples.end(), words("A C B")) != triples.end());
    }

    // Occurrences do not overlap: A A A A holds "A A" twice, not three times.
    void nonOverlapping()
    {
        TraceText text;
        text.kernels(7, "A A A A");
        const auto loaded = text.load();
        const auto twice = find(loaded, 2);
        QCOMPARE(kernelsOf(twice), (std::vector<Names>{words("A A")}));
        QCOMPARE(twice.front().occurrences, std::uint64_t(2));
        QCOMPARE(twice.front().totalNs, std::int64_t(4000));
        QVERIFY(find(loaded, 3).empty());
        // A single kernel is a run of one when asked for.
        const auto singles = find(loaded, 4, 16, 1);
        QCOMPARE(kernelsOf(singles), (std::vector<Names>{words("A")}));
        QCOMPARE(singles.front().occurrences, std::uint64_t(4));
    }

    // A run inside a longer one keeps only its occurrences outside the longer one's: "A B" (4
    // times) is left once beside "A B C" (3 times, ranked first: 9 kernels against 8), too
    // rarely for a row.
    void containedRuns()
    {
        TraceText text;
        text.kernels(7, "A B C x A B C y A B C z A B");
        const auto found = find(text.load(), 3);
        QCOMPARE(kernelsOf(found), (std::vector<Names>{words("A B C")}));
        QCOMPARE(countsOf(found), (std::vector<std::uint64_t>{3}));
    }

    // maxLength bounds the runs: with 3, "A B C" and "B C D" stand for "A B C D".
    void maxLength()
    {
        TraceText text;
        text.kernels(7, "A B C D A B C D A B C D");
        const auto loaded = text.load();
        const auto whole = find(loaded, 3);
        QCOMPARE(kernelsOf(whole), (std::vector<Names>{words("A B C D")}));
        const auto bounded = find(loaded, 3, 3);
        // Both score 9; B C D runs longer (27 µs against 18) and takes the cycle's kernels: A B C,
        // another window of the same cycle, is left none of its own and is no row.
        QCOMPARE(kernelsOf(bounded), (std::vector<Names>{words("B C D")}));
        QCOMPARE(bounded[0].totalNs, std::int64_t(27000));
        QVERIFY(find(loaded, 3, 1).empty()); // maxLength below minLength
    }

    // Streams are counted apart: A B twice on one and once on another is not three times.
    void streamsApart()
    {
        TraceText text;
        text.kernels(7, "A B - - A B");
        text.kernels(8, "A B", 25);
        const auto loaded = text.load();
        QVERIFY(find(loaded, 3).empty());
        const auto found = find(loaded, 2);
        QCOMPARE(found.size(), std::size_t(1));
        QCOMPARE(found.front().stream, 7);
        QCOMPARE(found.front().occurrences, std::uint64_t(2));
    }

    // One stream's kernels on two tracks (its stream arg, not the tid, names it) are merged in
    // time order.
    void streamOnTwoTracks()
    {
        TraceText text;
        text.kernels(7, "A - A - A", 0, 7);
        text.kernels(7, "B - B - B", 5, 9);
        const auto found = find(text.load(), 3);
        QCOMPARE(kernelsOf(found), (std::vector<Names>{words("A B")}));
        QCOMPARE(found.front().occurrences, std::uint64_t(3));
        QCOMPARE(found.front().stream, 7);
        // Each A (1 µs) ends 4 µs before its B starts.
        QCOMPARE(found.front().gapNs, std::int64_t(3 * 4000));
    }

    // Memcpy and memset are not kernels: they neither join a run nor break one.
    void copiesIgnored()
    {
        TraceText text;
        text.kernels(7, "A B memcpy A B A memcpy B");
        const auto found = find(text.load(), 3);
        QCOMPARE(kernelsOf(found), (std::vector<Names>{words("A B")}));
        QCOMPARE(found.front().occurrences, std::uint64_t(3));
    }

    // Only kernels that start in the range count.
    void range()
    {
        TraceText text;
        text.kernels(7, "A B C A B C A B C");
        const auto loaded = text.load();
        SequenceOptions options;
        options.minOccurrences = 3;
        QCOMPARE(findKernelSequences(*loaded.index, options).size(), std::size_t(1));
        options.range = TimeRange{0, 60'000}; // the first six kernels
        QVERIFY(findKernelSequences(*loaded.index, options).empty());
        options.minOccurrences = 2;
        const auto found = findKernelSequences(*loaded.index, options);
        QCOMPARE(kernelsOf(found), (std::vector<Names>{words("A B C")}));
        QCOMPARE(found.front().occurrences, std::uint64_t(2));
    }

    // The op that launched each kernel of the first occurrence, through correlation ids.
    void launchingOps()
    {
        TraceText text;
        std::int64_t correlation = 1;
        for (int rep = 0; rep < 3; ++rep) {
            const std::int64_t t = rep * 100;
            text.add(TraceText::event("cpu_op", "aten::mm", 100, 1, t, 20, ""));
            text.add(TraceText::event("cuda_runtime", "cudaLaunchKernel", 100, 1, t + 5, 5,
                                      "\"correlation\":" + std::to_string(correlation)));
            text.add(TraceText::event("kernel", "A", 0, 7, t + 50, 1,
                                      "\"device\":0,\"stream\":7,\"correlation\":" + std::to_string(correlation)));
            ++correlation;
            text.add(TraceText::event("cpu_op", "aten::add", 100, 1, t + 30, 10, ""));
            text.add(TraceText::event("cuda_runtime", "cudaLaunchKernel", 100, 1, t + 32, 5,
                                      "\"correlation\":" + std::to_string(correlation)));
            text.add(TraceText::event("kernel", "B", 0, 7, t + 60, 2,
                                      "\"device\":0,\"stream\":7,\"correlation\":" + std::to_string(correlation)));
            ++correlation;
            // Launched by no op: its runtime call has no correlation in the trace.
            text.add(TraceText::event("kernel", "C", 0, 7, t + 70, 3, "\"device\":0,\"stream\":7"));
        }
        const auto found = find(text.load(), 3);
        QCOMPARE(found.size(), std::size_t(1));
        QCOMPARE(found.front().kernels, words("A B C"));
        QCOMPARE(found.front().ops, (Names{"aten::mm", "aten::add", ""}));
    }

    // top keeps the best; 0 keeps every one.
    void top()
    {
        TraceText text;
        text.kernels(7, "A B C A B C A B C D");
        const auto loaded = text.load();
        SequenceOptions options;
        options.minOccurrences = 2;
        options.top = 1;
        QCOMPARE(kernelsOf(findKernelSequences(*loaded.index, options)), (std::vector<Names>{words("A B C")}));
        options.top = 0;
        QCOMPARE(findKernelSequences(*loaded.index, options).size(), std::size_t(1)); // the rotations are one
    }

    void stopped()
    {
        TraceText text;
        text.kernels(7, "A B A B A B");
        const auto loaded = text.load();
        StopToken stop;
        QVERIFY(!findKernelSequences(*loaded.index, {}, &stop).empty());
        stop.requestStop();
        QVERIFY(findKernelSequences(*loaded.index, {}, &stop).empty());
    }

    // Real traces against the script's count (every run as a tuple, no hashing).
    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const auto *name : {"h100_bert", "v100_resnet50"})
            QTest::addRow("%s", name) << QString(name);
    }

    void golden()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto found = findKernelSequences(*loaded.index);
        const auto expected = readCsv(goldenPath(name, ".sequences.csv"));
        QVERIFY(expected.size() > 1);
        QCOMPARE(found.size(), expected.size() - 1);
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            const auto &s = found[r - 1];
            QCOMPARE(s.device, std::stoi(e[0]));
            QCOMPARE(s.stream, std::stoi(e[1]));
            QCOMPARE(s.occurrences, std::stoull(e[2]));
            QCOMPARE(s.kernels.size(), std::stoull(e[3]));
            QCOMPARE(s.totalNs, std::stoll(e[4]));
            QCOMPARE(s.gapNs, std::stoll(e[5]));
            QCOMPARE(s.kernels, split(e[6], ';'));
            QCOMPARE(s.ops, split(e[7], ';'));
        }
    }

    // BERT's encoder layers repeat: the top run covers one layer, once per layer.
    void bertLayers()
    {
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        const auto found = findKernelSequences(*loaded.index);
        QVERIFY(!found.empty());
        QCOMPARE(found.front().occurrences, std::uint64_t(4));
        QVERIFY(std::any_of(found.front().kernels.begin(), found.front().kernels.end(),
                            [](const std::string &k) { return k.find("flash_fwd_kernel") != std::string::npos; }));
    }
};

QTEST_GUILESS_MAIN(TestKernelSequences)
#include "tst_kernelsequences.moc"
