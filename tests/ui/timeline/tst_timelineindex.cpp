// Qt first: moc cannot parse <compare> (included by core headers) before a Qt header.
#include <QFile>
#include <QHelpEvent>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

#include "core/analysis/launches.h"
#include "core/trace/loader.h"
#include "ui/timeline/drawlist.h"
#include "ui/timeline/timelineview.h"
#include "tests/ui/maybegrab.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>

using namespace pyrometer;
using namespace pyrometer::ui::timeline;

namespace {

std::shared_ptr<const trace::Trace> load(const QString &file)
{
    auto loaded = trace::loadTrace(file.toStdString());
    return loaded.ok() ? loaded.value() : nullptr;
}

// Some 100k events as a profiler writes them: four threads of operators three deep, with
// events of every length, and a GPU stream whose kernels sometimes overlap (a second lane);
// and a thread of events seconds apart, some seconds long.
QString writeNestedTrace(const QString &dir)
{
    const QString file = dir + "/nested.json";
    std::ofstream out(file.toStdString());
    std::mt19937 random(7);
    out << R"({"traceEvents":[)";
    const auto event = [&](int tid, const char *name, const char *category, double ts, double dur) {
        out << R"({"ph":"X","name":")" << name << R"(","cat":")" << category << R"(","pid":1,"tid":)" << tid
            << R"(,"ts":)" << ts << R"(,"dur":)" << dur << "},";
    };
    for (int tid = 1; tid <= 4; ++tid) {
        for (int k = 0; k < 4800; ++k) {
            const double ts = k * 20.0 + double(random() % 5);
            event(tid, "aten::linear", "cpu_op", ts, 12);
            event(tid, "aten::addmm", "cpu_op", ts + 1, 6);
            event(tid, "aten::empty", "cpu_op", ts + 1.5, 0.05 * double(1 + random() % 40));
            event(tid, "aten::t", "cpu_op", ts + 8, 3);
            event(tid, "aten::as_strided", "cpu_op", ts + 8.5, 1);
        }
    }
    for (int k = 0; k < 2000; ++k)
        event(7, "gemm", "kernel", k * 48.0, k % 10 == 0 ? 60 : 30);
    for (int k = 0; k < 300; ++k)
        event(9, k % 3 ? "wait" : "train", "user_annotation", k * 7e6, 1e3 * double(1 + random() % 6000));
    out << R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}}]})";
    return file;
}

// Two threads busy 5% and 95% of the time, in events of 100 ns each period, and a third
// with two bursts of such events 50 µs apart.
QString writeOccupancyTrace(const QString &dir)
{
    const QString file = dir + "/occupancy.json";
    std::ofstream out(file.toStdString());
    out << R"({"traceEvents":[)";
    for (int i = 0; i < 5000; ++i) {
        const double ts = i * 0.1;
        out << R"({"ph":"X","name":"light","cat":"cpu_op","pid":1,"tid":1,"ts":)" << ts << R"(,"dur":0.005},)";
        out << R"({"ph":"X","name":"heavy","cat":"cpu_op","pid":1,"tid":2,"ts":)" << ts << R"(,"dur":0.095},)";
        if (i < 100 || i >= 600)
            out << R"({"ph":"X","name":"burst","cat":"cpu_op","pid":1,"tid":3,"ts":)" << ts << R"(,"dur":0.05},)";
    }
    out << R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}}]})";
    return file;
}

// A counter of `samples` samples at irregular times, with random values.
QString writeCounterTrace(const QString &dir, int samples = 5000)
{
    const QString file = dir + QStringLiteral("/counter-%1.json").arg(samples);
    std::ofstream out(file.toStdString());
    std::mt19937 random(11);
    out << R"({"traceEvents":[)";
    double ts = 0;
    for (int i = 0; i < samples; ++i) {
        ts += 0.01 * double(1 + random() % 300);
        out << R"({"ph":"C","name":"memory","pid":1,"ts":)" << ts << R"(,"args":{"bytes":)" << random() % 100000
            << "}},";
    }
    out << R"({"ph":"X","name":"op","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":1}]})";
    return file;
}

// The boxes of the row holding the thread's events, in order.
std::vector<DrawBox> boxesOfThread(const TimelineIndex &index, const DrawList &list, std::int64_t tid)
{
    std::vector<DrawBox> boxes;
    for (const auto &box : list.boxes) {
        const auto &track = index.trace->track(index.rows[box.row].trackId);
        if (track.tid.number == tid)
            boxes.push_back(box);
    }
    return boxes;
}

// 20000 events of 10 ns, 100 ns apart, on one thread, and every 2000th of them 50 µs long
// instead.
QString writeDenseWideTrace(const QString &dir)
{
    const QString file = dir + "/dense-wide.json";
    std::ofstream out(file.toStdString());
    out << R"({"traceEvents":[)";
    double ts = 0;
    for (int i = 0; i < 20000; ++i) {
        const bool wide = i % 2000 == 1000;
        out << R"({"ph":"X","cat":"cpu_op","pid":1,"tid":1,"name":")" << (wide ? "wide" : "tiny") << R"(","ts":)" << ts
            << R"(,"dur":)" << (wide ? 50.0 : 0.01) << "},";
        ts += wide ? 50.1 : 0.1;
    }
    out << R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}}]})";
    return file;
}

// Per (row, pixel column), the height of the fill drawn there (of the topmost fill).
std::map<std::pair<std::uint32_t, int>, int> drawnColumns(const DrawList &list)
{
    std::map<std::pair<std::uint32_t, int>, int> columns;
    for (const auto &box : list.boxes) {
        if (!box.column)
            continue;
        for (int x = int(std::floor(box.x0)); x < std::max(int(std::floor(box.x0)) + 1, int(std::ceil(box.x1))); ++x)
            columns[{box.row, x}] = box.height;
    }
    return columns;
}

} // namespace

class TestTimelineIndex : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void indexTakesAtMost32BytesAnEvent()
    {
        const auto index = buildTimelineIndex(load(writeNestedTrace(m_dir.path())));
        QVERIFY(index);
        std::size_t events = 0;
        for (const auto &row : index->rows)
            events += row.size();
        QVERIFY2(events >= 90'000, qPrintable(QString::number(events)));
        const double perEvent = double(index->memoryBytes()) / double(events);
        // 20 bytes of starts, prefix sums and event indices, 2 of blocks above them, and about 6
        // of the summary for zoomed-out frames.
        QVERIFY2(perEvent <= 32, qPrintable(QString::number(perEvent)));
        QVERIFY(perEvent >= 24); // all of them are there
    }

    // A small row beside long ones (1,500 events against 100,000 over the same time) gets a
    // finest summary level of 1 to 2 events a bucket, where a long row's holds 2 to 4: a view
    // with 2 of its events a column reads it from its summary instead of event by event.
    void smallRowsGetAFinerSummary()
    {
        const QString file = m_dir.path() + QStringLiteral("/small-beside-long.json");
        {
            std::ofstream out(file.toStdString());
            out << R"({"traceEvents":[)";
            for (int i = 0; i < 100'000; ++i)
                out << R"({"ph":"X","name":"k","cat":"kernel","pid":1,"tid":1,"ts":)" << i << R"(,"dur":0.01},)";
            for (int i = 0; i < 1'500; ++i)
                out << R"({"ph":"X","name":"op","cat":"cpu_op","pid":1,"tid":2,"ts":)" << i * 66.66 << R"(,"dur":1},)";
            out << R"({"ph":"X","name":"end","cat":"cpu_op","pid":1,"tid":3,"ts":0,"dur":1}]})";
        }
        const auto index = buildTimelineIndex(load(file));
        QVERIFY(index);
        const auto rowOfThread = [&](std::int64_t tid) -> const SliceRow & {
            for (const auto &row : index->rows) {
                if (index->trace->track(row.trackId).tid.number == tid)
                    return row;
            }
            return index->rows.front();
        };
        // Average events in a row's finest bucket.
        const auto finestEvents = [](const SliceRow &row) {
            const double span = double(row.endAt(std::uint32_t(row.size() - 1)) - row.starts.front());
            return double(std::int64_t(1) << row.summary.front().shift) / (span / double(row.size()));
        };
        const auto &small = rowOfThread(2);
        const auto &big = rowOfThread(1);
        QCOMPARE(small.size(), std::size_t(1'500));
        QCOMPARE(big.size(), std::size_t(100'000));
        QVERIFY(!small.summary.empty() && !big.summary.empty());
        QVERIFY2(finestEvents(small) >= 1 && finestEvents(small) < 2.01,
                 qPrintable(QString::number(finestEvents(small))));
        QVERIFY2(finestEvents(big) >= 2 && finestEvents(big) < 4.01, qPrintable(QString::number(finestEvents(big))));
        const double smallGap = double(small.starts.back() - small.starts.front()) / double(small.size() - 1);
        QVERIFY(small.summaryFor(2 * smallGap) != nullptr);
    }

    void rowsAnswerAsALinearScanDoes()
    {
        const auto index = buildTimelineIndex(load(writeNestedTrace(m_dir.path())));
        QVERIFY(index);
        const auto &trace = *index->trace;
        // Every event is found in the row rowOf names, which has its lane and depth.
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
            const auto &track = trace.tracks[t];
            for (std::uint32_t e = 0; e < track.size(); e += 7) {
                const auto &row = index->rows[index->rowOf(trace::TrackId(t), trace::EventIndex(e))];
                QCOMPARE(row.trackId.value, t);
                QCOMPARE(row.lane, track.lane[e]);
                QCOMPARE(row.depth, track.depth[e]);
                const auto at = std::lower_bound(row.events.begin(), row.events.end(), e);
                QVERIFY(at != row.events.end() && *at == e);
                const auto position = std::uint32_t(at - row.events.begin());
                QCOMPARE(row.endAt(position), track.start[e] + track.duration[e]);
            }
        }
        // Longest event, covered time and searches over random ranges, against brute force.
        std::mt19937 random(3);
        int checked = 0;
        for (const auto &row : index->rows) {
            const auto n = std::uint32_t(row.size());
            if (n < 100)
                continue;
            for (int k = 0; k < 200; ++k) {
                const auto from = std::uint32_t(random() % n);
                const auto to =
                    from + 1 + std::uint32_t(random() % std::min<std::uint32_t>(n - from, k % 2 ? 40 : 5000));
                std::uint32_t longest = from;
                for (auto i = from; i < to; ++i)
                    longest = row.durationAt(i) > row.durationAt(longest) ? i : longest;
                QCOMPARE(row.longestIn(from, to).position, longest);
                QCOMPARE(row.longestIn(from, to).duration, row.durationAt(longest));

                // A window inside the range's span: the events it meets are all in the range.
                const auto spanEnd = row.endAt(to - 1);
                const auto t0 =
                    row.starts[from] + std::int64_t(random() % std::uint64_t(spanEnd - row.starts[from] + 1));
                const auto t1 =
                    t0 + 1 + std::int64_t(random() % std::uint64_t(std::max<std::int64_t>(1, spanEnd - t0)));
                std::int64_t covered = 0;
                for (auto i = from; i < to; ++i)
                    covered += std::max<std::int64_t>(0, std::min(row.endAt(i), t1) - std::max(row.starts[i], t0));
                if (t1 <= spanEnd)
                    QCOMPARE(row.busyIn(row.firstEndingAfter(t0, from), row.firstStartingFrom(t1, from), t0, t1),
                             covered);
                auto linear = from;
                while (linear < n && row.endAt(linear) <= t0 && row.starts[linear] < t0)
                    ++linear;
                QCOMPARE(row.firstEndingAfter(t0, from), linear);
                ++checked;
            }
        }
        QVERIFY(checked >= 1000);
    }

    void rowsAreDrawnByOccupancy()
    {
        const auto index = buildTimelineIndex(load(writeOccupancyTrace(m_dir.path())));
        QVERIFY(index);
        const auto layout = buildLayout(*index, {});
        // 1 µs a pixel over 500 µs: every event is a tenth of a pixel or less.
        const Viewport view{0, 1000, 500, 0, 400};
        const auto list = buildDrawList(*index, layout, view, ColorMode::ByCategory);
        const auto light = boxesOfThread(*index, list, 1);
        const auto heavy = boxesOfThread(*index, list, 2);
        // Boxes as tall as the share of their columns that is busy, standing on the row's
        // bottom; alike columns side by side share a box.
        for (const auto *boxes : {&light, &heavy}) {
            const double share = boxes == &light ? 0.05 : 0.95;
            float columns = 0;
            for (const auto &box : *boxes) {
                const auto &row = layout.rows[std::size_t(layout.sliceRowToLayout[box.row])];
                const int full = row.height - 1; // what a busy column fills: the row less the gap under it
                QVERIFY(box.column);
                QCOMPARE(box.x0, std::floor(box.x0));
                QCOMPARE(box.x1, std::floor(box.x1));
                columns += box.x1 - box.x0;
                const int drawn = box.height - 1;
                QVERIFY2(std::abs(drawn - share * full) <= 1.0,
                         qPrintable(QStringLiteral("%1 px at %2").arg(drawn).arg(box.x0)));
                QCOMPARE(box.y + box.height, row.y + row.height);
                QVERIFY(std::abs(columnContent(*index, view, box).busyShare - share) < 0.01);
            }
            QCOMPARE(columns, 500.0f);
        }
        // The heavy row's boxes are many times the light row's: 16 or 17 pixels against 1.
        QVERIFY(!light.empty() && !heavy.empty());
        QVERIFY(heavy.front().height - 1 >= 15 * (light.front().height - 1));
        // Every event is counted once, whatever column its time falls in.
        QCOMPARE(list.eventsDrawn, std::size_t(5000 + 5000 + 4500));
    }

    void gapsStayEmpty()
    {
        const auto index = buildTimelineIndex(load(writeOccupancyTrace(m_dir.path())));
        QVERIFY(index);
        const auto layout = buildLayout(*index, {});
        const Viewport view{0, 1000, 500, 0, 400};
        const auto burst = boxesOfThread(*index, buildDrawList(*index, layout, view, ColorMode::ByCategory), 3);
        QVERIFY(!burst.empty());
        // The bursts cover 0..10 µs and 60..500 µs: nothing is drawn over the 50 pixels between.
        std::vector<Fill> fills = joinedFills(burst);
        for (const auto &fill : fills)
            QVERIFY2(fill.right <= 11 || fill.left >= 59,
                     qPrintable(QStringLiteral("%1..%2").arg(fill.left).arg(fill.right)));
        QVERIFY(std::any_of(fills.begin(), fills.end(), [](const Fill &fill) { return fill.left < 10; }));
        QVERIFY(std::any_of(fills.begin(), fills.end(), [](const Fill &fill) { return fill.right > 61; }));
    }

    void counterColumnsHoldTheirLargestValue()
    {
        const auto index = buildTimelineIndex(load(writeCounterTrace(m_dir.path())));
        QVERIFY(index);
        QCOMPARE(index->trace->counters.size(), std::size_t(1));
        const auto &series = index->trace->counters[0];
        const auto layout = buildLayout(*index, {});
        const double span = double(series.time.back() - series.time.front());
        // Zoomed out (a dozen samples a column), in between, and in (about one a column).
        for (const double share : {1.2, 0.1, 0.003}) {
            const double start = double(series.time.front()) + (share > 1 ? -0.05 : 0.3) * span;
            const Viewport view{start, span * share / 400, 400, 0, 400};
            const auto list = buildDrawList(*index, layout, view, ColorMode::ByCategory);
            QCOMPARE(list.counters.size(), std::size_t(1));
            std::size_t checked = 0;
            for (const auto &[x, value] : list.counters[0].points) {
                // The largest value in force during the column, sample by sample.
                const auto from = std::int64_t(std::floor(view.toNs(x)));
                const auto to = std::int64_t(std::floor(view.toNs(x + 1)));
                double largest = 0;
                for (std::size_t i = 0; i < series.time.size(); ++i) {
                    const bool inForce =
                        series.time[i] < to && (i + 1 == series.time.size() || series.time[i + 1] > from);
                    if (inForce)
                        largest = std::max(largest, series.value[i]);
                }
                if (share > 1) {
                    // Zoomed out, a column over two blocks of samples or more rounds out to
                    // whole blocks (see denseCounterColumnsKeepEveryPeak): never below its own.
                    QVERIFY(value >= float(largest / index->counterMax[0]));
                } else {
                    QCOMPARE(double(value), double(float(largest / index->counterMax[0])));
                }
                ++checked;
            }
            QVERIFY(checked >= 10);
        }
    }

    void denseCounterColumnsKeepEveryPeak()
    {
        // 200 000 samples on 400 columns: some 500 a column, read from the blocks alone.
        const auto index = buildTimelineIndex(load(writeCounterTrace(m_dir.path(), 200'000)));
        QVERIFY(index);
        const auto &series = index->trace->counters[0];
        const auto layout = buildLayout(*index, {});
        const double span = double(series.time.back() - series.time.front());
        const Viewport view{double(series.time.front()) - 0.01 * span, span * 1.02 / 400, 400, 0, 400};
        const auto list = buildDrawList(*index, layout, view, ColorMode::ByCategory);
        QCOMPARE(list.counters.size(), std::size_t(1));
        // The largest value in force over columns [x0, x1), sample by sample.
        const auto largestIn = [&](double x0, double x1) {
            const auto from = std::int64_t(std::floor(view.toNs(x0)));
            const auto to = std::int64_t(std::floor(view.toNs(x1)));
            double largest = 0;
            for (std::size_t i = 0; i < series.time.size(); ++i) {
                if (series.time[i] < to && (i + 1 == series.time.size() || series.time[i + 1] > from))
                    largest = std::max(largest, series.value[i]);
            }
            return float(largest / index->counterMax[0]);
        };
        std::size_t higher = 0;
        for (const auto &[x, value] : list.counters[0].points) {
            // Never below the column's own largest, never above its neighbours' and its own.
            QVERIFY2(value >= largestIn(x, x + 1), qPrintable(QString::number(x)));
            QVERIFY2(value <= largestIn(x - 1, x + 2), qPrintable(QString::number(x)));
            higher += value > largestIn(x, x + 1);
        }
        QVERIFY(list.counters[0].points.size() >= 390);
        QVERIFY2(higher <= 80, qPrintable(QString::number(higher))); // a peak shows early or late, now and then
    }

    // A bursty counter (bursts of samples a few nanoseconds apart, then long quiet stretches),
    // the kind whose zoomed-out columns hold a few samples each or none: its summary holds
    // per bucket the largest value in force, and a fit-all view's columns, read from it, are
    // never below their own largest nor above their neighbours'; where nothing changes near a
    // column it holds the value in force exactly.
    void burstyCounterColumnsFromTheSummary()
    {
        const QString file = m_dir.path() + QStringLiteral("/bursty.json");
        {
            std::ofstream out(file.toStdString());
            std::mt19937 random(5);
            out << R"({"traceEvents":[)";
            double ts = 0;
            for (int burst = 0; burst < 40; ++burst) {
                for (int i = 0; i < 200; ++i) {
                    ts += 0.001 * double(1 + random() % 5);
                    out << R"({"ph":"C","name":"memory","pid":1,"ts":)" << ts << R"(,"args":{"bytes":)"
                        << random() % 100000 << "}},";
                }
                ts += double(10'000 + random() % 50'000); // 10 to 60 ms of quiet
            }
            out << R"({"ph":"X","name":"op","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":1}]})";
        }
        const auto index = buildTimelineIndex(load(file));
        QVERIFY(index);
        const auto &series = index->trace->counters[0];
        QCOMPARE(series.time.size(), std::size_t(8000));
        const auto &summary = index->counterSummaries[0];
        QVERIFY(summary.levels.size() >= 2);
        QCOMPARE(summary.origin, series.time.front());
        // The largest value in force over [from, to), sample by sample.
        const auto largestIn = [&](std::int64_t from, std::int64_t to) {
            double largest = 0;
            for (std::size_t i = 0; i < series.time.size(); ++i) {
                if (series.time[i] < to && (i + 1 == series.time.size() || series.time[i + 1] > from))
                    largest = std::max(largest, series.value[i]);
            }
            return largest;
        };
        for (const auto &level : {summary.levels.front(), summary.levels.back()}) {
            const auto width = std::int64_t(1) << level.shift;
            for (std::size_t b = 0; b < level.share.size(); b += 1 + level.share.size() / 97) {
                const auto start = summary.origin + std::int64_t(b) * width;
                QCOMPARE(level.share[b], float(largestIn(start, start + width) / index->counterMax[0]));
            }
        }

        const auto layout = buildLayout(*index, {});
        const double span = double(series.time.back() - series.time.front());
        const Viewport view{double(series.time.front()) - 0.01 * span, span * 1.02 / 400, 400, 0, 400};
        QVERIFY(summary.levelFor(view.nsPerPixel / 8) != nullptr); // the fit-all view reads the summary
        const auto list = buildDrawList(*index, layout, view, ColorMode::ByCategory);
        const auto columnLargest = [&](double x0, double x1) {
            return float(largestIn(std::int64_t(std::floor(view.toNs(x0))), std::int64_t(std::floor(view.toNs(x1)))) /
                         index->counterMax[0]);
        };
        std::size_t quiet = 0;
        for (const auto &[x, value] : list.counters[0].points) {
            QVERIFY2(value >= columnLargest(x, x + 1), qPrintable(QString::number(x)));
            QVERIFY2(value <= columnLargest(x - 1, x + 2), qPrintable(QString::number(x)));
            if (columnLargest(x - 1, x + 2) == columnLargest(x, x + 1)) {
                QCOMPARE(value, columnLargest(x, x + 1));
                ++quiet;
            }
        }
        QVERIFY(list.counters[0].points.size() >= 390);
        QVERIFY2(quiet >= 300, qPrintable(QString::number(quiet)));
    }

    // Each GPU stream's queue of launched kernels is a counter track in the stream's process,
    // holding buildLaunchStats's queue point for point.
    void launchQueuesAreCounterTracks()
    {
        const auto index =
            buildTimelineIndex(load(QStringLiteral(PYROMETER_FIXTURES_DIR "/analysis/launches_two_streams.json")));
        QVERIFY(index);
        const auto stats = analysis::buildLaunchStats(*index->analysis);
        QCOMPARE(stats.queues.size(), std::size_t(2));
        QCOMPARE(index->derivedCounters.size(), stats.queues.size());
        QCOMPARE(index->counterCount(), index->trace->counters.size() + stats.queues.size());
        for (std::size_t q = 0; q < stats.queues.size(); ++q) {
            const auto &queue = stats.queues[q];
            const auto &series = index->counter(std::uint32_t(index->trace->counters.size() + q));
            QCOMPARE(series.name, "launch queue, stream " + std::to_string(queue.stream));
            QCOMPARE(series.time, queue.timeNs);
            QCOMPARE(series.value.size(), queue.length.size());
            for (std::size_t i = 0; i < series.value.size(); ++i)
                QCOMPARE(series.value[i], double(queue.length[i]));
            QCOMPARE(index->counterMax[index->trace->counters.size() + q], double(queue.maxLength));
            // In the process of the stream's kernels.
            const auto kernel = std::find_if(stats.launches.begin(), stats.launches.end(),
                                             [&](const auto &l) { return l.stream == queue.stream; });
            QVERIFY(kernel != stats.launches.end());
            QCOMPARE(series.process, index->trace->track(kernel->kernel.track).process);
        }
        // The layout gives each a counter row.
        const auto layout = buildLayout(*index, {});
        std::size_t queueRows = 0;
        for (const auto &row : layout.rows)
            queueRows += row.kind == RowKind::Counter && row.ref >= index->trace->counters.size() ? 1 : 0;
        QCOMPARE(queueRows, stats.queues.size());
    }

    // Kineto's "Process -1" (its overhead events) is no rank of its own: a single trace is one
    // part; in a combined trace each part's pids, -1 included, stay in that part.
    void negativePidsStayInTheirPart()
    {
        const auto process = [](std::int64_t pid) {
            trace::Process p;
            p.pid.number = pid;
            return p;
        };
        QCOMPARE(processPart(process(-1)), 0u);
        QCOMPARE(processPart(process(865)), 0u);
        QCOMPARE(processPart(process((std::int64_t(3) << 32) - 1)), 3u);
        QCOMPARE(processPart(process((std::int64_t(3) << 32) + 865)), 3u);
        trace::Trace single;
        single.processes = {process(865), process(-1), process(0)};
        QCOMPARE(traceParts(single), std::vector<std::uint32_t>{0});
    }

    // A stream that replays CUDA graphs gets a counter row of its replays: the graph id from a
    // replay's first kernel start to its last kernel end, 0 between them. Two replays of graph 5
    // (kernels 100-110 and 112-130 µs; 200-220 µs) and one of graph 6 back to back (220-230 µs).
    void graphReplaysAreACounterTrack()
    {
        const QString file = m_dir.filePath(QStringLiteral("graphs.json"));
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            const auto call = [](int ts, int correlation) {
                return QStringLiteral(
                           R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1,
                    "ts": %1, "dur": 5, "args": {"correlation": %2}},)")
                    .arg(ts)
                    .arg(correlation);
            };
            const auto kernel = [](int ts, int dur, int correlation, int graph) {
                return QStringLiteral(R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %1,
                    "dur": %2, "args": {"device": 0, "stream": 7, "correlation": %3, "graph id": %4}},)")
                    .arg(ts)
                    .arg(dur)
                    .arg(correlation)
                    .arg(graph);
            };
            QString text = QStringLiteral(R"({"traceEvents": [)") + call(50, 1) + kernel(100, 10, 1, 5) +
                           kernel(112, 18, 1, 5) + call(150, 2) + kernel(200, 20, 2, 5) + call(160, 3) +
                           kernel(220, 10, 3, 6);
            text.chop(1);
            out.write((text + QStringLiteral("]}")).toUtf8());
        }
        const auto index = buildTimelineIndex(load(file));
        QVERIFY(index);
        const auto graphs =
            std::find_if(index->derivedCounters.begin(), index->derivedCounters.end(),
                         [](const trace::CounterSeries &c) { return c.name.starts_with("graph replays"); });
        QVERIFY(graphs != index->derivedCounters.end());
        QCOMPARE(graphs->name, std::string("graph replays, stream 7"));
        constexpr std::int64_t us = 1000;
        QCOMPARE(graphs->time, (std::vector<std::int64_t>{100 * us, 130 * us, 200 * us, 220 * us, 230 * us}));
        QCOMPARE(graphs->value, (std::vector<double>{5, 0, 5, 6, 0}));
    }

    void summaryFramesMatchExactOnes()
    {
        // The same frames built from the rows' summaries and event by event, from fit-all in.
        const auto index = buildTimelineIndex(load(writeNestedTrace(m_dir.path())));
        QVERIFY(index);
        auto exactIndex = std::make_shared<TimelineIndex>(*index);
        std::size_t summarized = 0;
        for (auto &row : exactIndex->rows) {
            summarized += !row.summary.empty();
            row.summary.clear();
        }
        QVERIFY(summarized >= 12); // the four threads' rows of every depth
        const auto layout = buildLayout(*index, {});
        const double span = double(index->spanEnd - index->spanStart);
        int framesFromSummary = 0;
        for (const double zoom : {1.0, 4.0, 16.0, 64.0, 256.0}) {
            for (const double at : {0.0, 0.37}) {
                const Viewport view{double(index->spanStart) + span * at / zoom * (zoom - 1), span / zoom / 1000, 1000, 0, 2000};
                bool fromSummary = false;
                for (const auto &row : index->rows)
                    fromSummary |= row.summaryFor(view.nsPerPixel) != nullptr;
                framesFromSummary += fromSummary;
                const auto list = buildDrawList(*index, layout, view, ColorMode::ByCategory);
                const auto exact = buildDrawList(*exactIndex, layout, view, ColorMode::ByCategory);
                // Events a pixel wide or more are drawn as themselves, the same in both.
                std::vector<DrawBox> wide;
                std::vector<DrawBox> exactWide;
                for (const auto &box : list.boxes) {
                    if (!box.column)
                        wide.push_back(box);
                }
                for (const auto &box : exact.boxes) {
                    if (!box.column)
                        exactWide.push_back(box);
                }
                QCOMPARE(wide.size(), exactWide.size());
                QVERIFY(wide == exactWide);
                // A column drawn in one is drawn within a pixel in the other, and the drawn area
                // of each row is within a tenth of the exact one's.
                const auto columns = drawnColumns(list);
                const auto exactColumns = drawnColumns(exact);
                const auto near = [](const auto &map, std::pair<std::uint32_t, int> key) {
                    return map.count(key) || map.count({key.first, key.second - 1}) || map.count({key.first, key.second + 1});
                };
                for (const auto &[key, height] : exactColumns)
                    QVERIFY2(near(columns, key), qPrintable(QStringLiteral("row %1 x %2 zoom %3").arg(key.first).arg(key.second).arg(zoom)));
                for (const auto &[key, height] : columns)
                    QVERIFY2(near(exactColumns, key), qPrintable(QStringLiteral("row %1 x %2 zoom %3").arg(key.first).arg(key.second).arg(zoom)));
                std::map<std::uint32_t, double> area;
                std::map<std::uint32_t, double> exactArea;
                for (const auto &[key, height] : columns)
                    area[key.first] += height;
                for (const auto &[key, height] : exactColumns)
                    exactArea[key.first] += height;
                for (const auto &[row, drawn] : exactArea) {
                    if (drawn >= 200) // rows of a few columns vary more, a pixel being much of them
                        QVERIFY2(std::abs(area[row] - drawn) <= 0.1 * drawn,
                                 qPrintable(QStringLiteral("row %1: %2 against %3 px").arg(row).arg(area[row]).arg(drawn)));
                }
            }
        }
        QVERIFY(framesFromSummary >= 6);
    }

    void wideEventsAmongDenseOnesAreThemselves()
    {
        const QString file = writeDenseWideTrace(m_dir.path());
        const auto index = buildTimelineIndex(load(file));
        QVERIFY(index);
        QCOMPARE(index->rows.size(), std::size_t(1));
        const auto &row = index->rows[0];
        const auto layout = buildLayout(*index, {});
        // 2.5 µs a pixel: a wide event is 20 pixels, a pixel holds some 25 tiny ones.
        const Viewport view{0, 2500, 1000, 0, 400};
        QVERIFY(row.summaryFor(view.nsPerPixel) != nullptr);
        const auto list = buildDrawList(*index, layout, view, ColorMode::ByName);
        const auto &track = index->trace->track(row.trackId);
        std::vector<const DrawBox *> wide;
        for (const auto &box : list.boxes) {
            if (!box.column)
                wide.push_back(&box);
        }
        QCOMPARE(wide.size(), std::size_t(10)); // each once
        for (const auto *box : wide) {
            QCOMPARE(index->trace->string(track.eventName[box->event]), std::string_view("wide"));
            QCOMPARE(box->x0, float(view.toX(double(track.start[box->event]))));
            QCOMPARE(box->x1, float(view.toX(double(track.start[box->event] + track.duration[box->event]))));
            // No column box is drawn under it, but in the columns it starts and ends in.
            for (const auto &other : list.boxes) {
                if (other.column)
                    QVERIFY2(other.x1 <= std::ceil(box->x0) + 1 || other.x0 >= std::floor(box->x1) - 1,
                             qPrintable(QStringLiteral("%1..%2 under %3..%4").arg(other.x0).arg(other.x1).arg(box->x0).arg(box->x1)));
            }
        }
        // The tiny events around them are drawn as busy columns, a tenth of their time.
        std::size_t columns = 0;
        for (const auto &box : list.boxes) {
            if (!box.column || box.x0 < 1 || box.x1 > 999)
                continue;
            columns += std::size_t(box.x1 - box.x0);
            QVERIFY(std::abs(columnContent(*index, view, box).busyShare - 0.1) < 0.02 ||
                    std::any_of(wide.begin(), wide.end(), [&](const DrawBox *w) {
                        return box.x0 < w->x1 + 2 && box.x1 > w->x0 - 2; // an end column shares a wide event's time
                    }));
        }
        QVERIFY(columns >= 600);
        QCOMPARE(list.eventsDrawn, std::size_t(20000));
        // Wherever the columns fall against the buckets, each wide event is drawn once.
        for (int shift = 1; shift < 40; ++shift) {
            const Viewport shifted{-937.0 * shift, 2500, 1000, 0, 400};
            const auto other = buildDrawList(*index, layout, shifted, ColorMode::ByName);
            const auto once = std::count_if(other.boxes.begin(), other.boxes.end(), [](const DrawBox &box) { return !box.column; });
            QVERIFY2(once == 10, qPrintable(QStringLiteral("%1 wide boxes at %2").arg(once).arg(shifted.startNs)));
        }

        // The view draws the same: the wide events whole among the columns.
        TimelineView timeline;
        timeline.resize(1000 + timeline.width() - timeline.rowsRect().width(), 200);
        timeline.setIndex(index);
        timeline.setVisibleRange(0, 2500.0 * timeline.rowsRect().width());
        QCOMPARE(timeline.viewport().nsPerPixel, 2500.0);
        std::size_t whole = 0;
        for (const auto &box : timeline.drawList().boxes)
            whole += !box.column && box.x1 - box.x0 >= 19;
        QCOMPARE(whole, std::size_t(10));
        maybeGrab(timeline, QStringLiteral("timeline-summary-wide.png"));
    }

    void columnTooltipSaysHowBusy()
    {
        const auto index = buildTimelineIndex(load(writeOccupancyTrace(m_dir.path())));
        QVERIFY(index);
        TimelineView view;
        view.resize(700, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(index);
        view.setVisibleRange(0, 500'000);
        const auto heavy = boxesOfThread(*index, view.drawList(), 2);
        QVERIFY(!heavy.empty());
        const auto &box = heavy[heavy.size() / 2];
        const QPoint at(view.rowsRect().left() + int(box.x0), view.rowsRect().top() + box.y + box.height / 2);
        QHelpEvent help(QEvent::ToolTip, at, view.mapToGlobal(at));
        QApplication::sendEvent(&view, &help);
        QVERIFY2(QToolTip::text().contains(QStringLiteral("heavy")), qPrintable(QToolTip::text()));
        // About 95%: a column of this view is a little more than a microsecond.
        QVERIFY2(QToolTip::text().contains(QRegularExpression(QStringLiteral("\\d+ events, 9\\d% busy"))),
                 qPrintable(QToolTip::text()));
        maybeGrab(view, QStringLiteral("timeline-summary-occupancy.png"));
    }
};

QTEST_MAIN(TestTimelineIndex)
#include "tst_timelineindex.moc"
