// The operator table against key_averages() of the torch installed here, on traces that torch
// recorded at test time (scripts/record-key-averages.py, the keyaverages_traces fixture): 1.13
// in the Debian 12 stage, 2.6 in the Debian 13 stage, so each stage checks its own torch.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/optable.h"
#endif

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

#include <cmath>
#include <map>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

const std::filesystem::path kTracesDir = PYROMETER_KEY_AVERAGES_DIR;

// Both exporters write times the profiler measured exactly in the trace's own unit: torch 1.13's
// legacy exporter whole µs (its profiler's clock), torch 2.x's Kineto ts and dur in µs with three
// decimals (its clock's ns). key_averages() sums the same values as doubles, so the table (exact
// ns) differs from it by float rounding only; the smallest real difference, one ns, is twice this.
constexpr double kToleranceUs = 0.0005;

constexpr std::string_view kMemoryRow = "[memory]";

QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

// Memory events that are inside an op or not depending on 256 ns at its edges. torch 2.x finds
// the memory events inside an op by its ns since the epoch through µs in a double and back
// (MemRecordsAcc.in_interval): near 1.8e18 ns a double's step is 256 ns, so such an event may
// count as top-level in key_averages() and not in the table, which compares exact ns, or the
// other way round. Any other memory event is classified alike by both.
std::uint64_t memoryAtOpEdges(const TraceIndex &index)
{
    constexpr std::int64_t kDoubleStepNs = 256;
    const auto &trace = *index.trace;
    std::uint64_t ambiguous = 0;
    for (std::size_t m = 0; m < trace.memory.size(); ++m) {
        const auto time = trace.memory.time[m];
        bool surely = false; // inside an op by more than the step
        bool maybe = false;  // inside an op widened by the step
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
            const auto &track = trace.tracks[t];
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                if (index.tracks[t].kind[i] != EventKind::Op)
                    continue;
                const auto start = track.start[i];
                const auto end = track.end(trace::EventIndex(i));
                surely = surely || (start + kDoubleStepNs <= time && time <= end - kDoubleStepNs);
                maybe = maybe || (start - kDoubleStepNs <= time && time <= end + kDoubleStepNs);
            }
        }
        ambiguous += maybe && !surely ? 1 : 0;
    }
    return ambiguous;
}

} // namespace

class TestKeyAverages : public QObject {
    Q_OBJECT

    QString m_torch;

private slots:
    void initTestCase()
    {
        if (QFile skipped(text((kTracesDir / "skipped.txt").string())); skipped.open(QIODevice::ReadOnly))
            QSKIP(qPrintable("no traces recorded: " + QString::fromUtf8(skipped.readAll()).trimmed()));
        QFile facts(text((kTracesDir / "facts.json").string()));
        QVERIFY2(facts.open(QIODevice::ReadOnly),
                 qPrintable("scripts/record-key-averages.py wrote no " + facts.fileName()));
        m_torch = QJsonDocument::fromJson(facts.readAll()).object().value("torch").toString();
        QVERIFY(!m_torch.isEmpty());
        qInfo("torch %s recorded the traces", qPrintable(m_torch));
    }

    void matchesKeyAverages_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("training") << "training";       // forward, backward, SGD step; shapes, memory
        QTest::addRow("transformer") << "transformer"; // nn.TransformerEncoder: fused and SDPA paths
    }

    void matchesKeyAverages()
    {
        QFETCH(QString, name);
        const auto tracePath = kTracesDir / (name.toStdString() + ".json");
        auto loaded = trace::loadTrace(tracePath);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
        const auto index = buildTraceIndex(*loaded.value());
        QVERIFY(index);
        std::map<std::string, OpRow> rows;
        for (const auto &row : buildOpTable(*index).rows)
            rows[row.name] = row;

        const auto expected = readCsv(kTracesDir / (name.toStdString() + ".key_averages.csv"));
        QVERIFY(expected.size() > 10);
        QCOMPARE(expected[0], (std::vector<std::string>{"name", "calls", "total_us", "self_us"}));
        // Every difference at once, so one run names them all.
        QStringList differences;
        std::map<std::string, bool> seen;
        for (std::size_t r = 1; r < expected.size(); ++r) {
            const auto &e = expected[r];
            seen[e[0]] = true;
            const auto it = rows.find(e[0]);
            if (it == rows.end() && e[0] == kMemoryRow && loaded.value()->memory.size() == 0) {
                // torch 1.13 without Kineto exports function events only: its top-level memory
                // events, key_averages' "[memory]" row, are not in the trace.
                qInfo("[memory]: key_averages %s, the trace no memory events", e[1].c_str());
                continue;
            }
            if (it == rows.end()) {
                differences << QString("%1: key_averages has %2 calls, the table no row").arg(text(e[0]), text(e[1]));
                continue;
            }
            const auto &row = it->second;
            if (e[0] == kMemoryRow) {
                const auto calls = std::stoll(e[1]);
                const auto near = memoryAtOpEdges(*index);
                qInfo("[memory]: key_averages %lld, the table %llu, %llu memory events at an op's edge", calls,
                      static_cast<unsigned long long>(row.calls), static_cast<unsigned long long>(near));
                if (static_cast<std::uint64_t>(std::llabs(calls - static_cast<std::int64_t>(row.calls))) > near)
                    differences << QString("[memory]: key_averages %1 calls, the table %2, more apart than the %3 "
                                           "memory events at an op's edge")
                                       .arg(calls)
                                       .arg(row.calls)
                                       .arg(near);
                continue;
            }
            const double total = static_cast<double>(row.totalNs) / 1000.0;
            const double self = static_cast<double>(row.selfNs) / 1000.0;
            if (row.calls != std::stoull(e[1]) || std::abs(total - std::stod(e[2])) >= kToleranceUs ||
                std::abs(self - std::stod(e[3])) >= kToleranceUs)
                differences << QString("%1: key_averages %2 calls, total %3, self %4 µs; the table %5, %6, %7")
                                   .arg(text(e[0]), text(e[1]), text(e[2]), text(e[3]))
                                   .arg(row.calls)
                                   .arg(total, 0, 'f', 3)
                                   .arg(self, 0, 'f', 3);
        }
        for (const auto &[rowName, row] : rows)
            if (!seen.count(rowName))
                differences << QString("%1: the table has %2 calls, key_averages no row").arg(text(rowName)).arg(row.calls);
        if (name == "training") // key_averages' rows the workload is there to produce
            QVERIFY2(seen.count(std::string(kMemoryRow)), "no memory event outside the ops: the [memory] row went untested");
        QVERIFY2(differences.isEmpty(),
                 qPrintable(QString("torch %1, %2 rows differ:\n").arg(m_torch).arg(differences.size()) +
                            differences.join('\n')));
        QCOMPARE(rows.size() + (rows.count(std::string(kMemoryRow)) ? 0 : seen.count(std::string(kMemoryRow))),
                 expected.size() - 1);
    }
};

QTEST_GUILESS_MAIN(TestKeyAverages)
#include "tst_keyaverages.moc"
