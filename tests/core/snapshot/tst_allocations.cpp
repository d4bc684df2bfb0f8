// Every allocation as a band (memory_viz's active memory timeline): at every position the bands
// add up to the replay's active curve and are the blocks liveAt names, stacked in allocation
// order with no gap; a stack moved anywhere (forward, back, far, through checkpoints) is the one
// walked there from the start.
#include <QTest>

#include "core/snapshot/allocations.h"
#include "core/snapshot/reader.h"

#include <filesystem>
#include <random>

using namespace pyrometer;
using namespace pyrometer::snapshot;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = PYROMETER_TEST_SNAPSHOTS_DIR;

std::int64_t activeAt(const DeviceReplay &d, std::int64_t p)
{
    return p < 0 ? d.activeAtStart : d.active[std::size_t(p)];
}

// The bands from the bottom up: contiguous, in allocation order, each live, adding up to the total.
bool bandsAreStacked(const AllocationStack &stack, const Allocations &a, std::string &why)
{
    std::int64_t height = 0;
    std::int64_t previous = -1;
    while (const auto band = stack.at(height)) {
        if (band->bottom != height || std::int64_t(band->allocation) <= previous || !stack.isLive(band->allocation) ||
            band->top - band->bottom != a.size[band->allocation] || stack.below(band->allocation) != band->bottom) {
            why = "band of allocation " + std::to_string(band->allocation) + " at " + std::to_string(height);
            return false;
        }
        previous = band->allocation;
        height = band->top;
    }
    if (height != stack.total()) {
        why = "the bands end at " + std::to_string(height) + ", the total is " + std::to_string(stack.total());
        return false;
    }
    return true;
}

// A run made by hand: `positions` events, each an allocation (of 1 byte to 64 KiB, a few of them
// large) or the free of a live one, checkpoints every `stride` positions as allocations() keeps
// them. Many small bands per pixel row and gaps of long-freed allocations in the stacking order.
Allocations simulated(std::int64_t positions, std::int64_t stride, std::uint32_t seed)
{
    Allocations a;
    std::mt19937 random(seed);
    std::vector<std::uint32_t> live;
    a.checkpointStride = stride;
    for (std::int64_t p = 0; p < positions; ++p) {
        if (p % stride == 0) {
            auto sorted = live;
            std::sort(sorted.begin(), sorted.end());
            a.checkpoints.push_back(std::move(sorted));
        }
        a.added.push_back(0);
        a.removed.push_back(0);
        if (!live.empty() && random() % 100 < 45) {
            const auto at = random() % live.size();
            const auto gone = live[at];
            live[at] = live.back();
            live.pop_back();
            a.removed.back() = gone + 1;
            a.freed[gone] = p;
            continue;
        }
        const auto allocation = std::uint32_t(a.count());
        a.address.push_back(0x1000 * (allocation + 1));
        a.size.push_back(random() % 50 == 0 ? std::int64_t(1) << 22 : 1 + std::int64_t(random() % 65536));
        a.stack.push_back(StackId(allocation % 7));
        a.allocated.push_back(p);
        a.freed.push_back(positions);
        a.added.back() = allocation + 1;
        live.push_back(allocation);
    }
    if (positions % stride == 0) {
        std::sort(live.begin(), live.end());
        a.checkpoints.push_back(std::move(live));
    }
    return a;
}

// One pixel column as forEachBand paints it from `fromRow` up: the allocation + 1 per row, 0 where
// nothing is drawn; rows below fromRow keep what `column` held.
void paintColumn(const AllocationStack &stack, int rows, double bytesPerPixel, int fromRow,
                 std::vector<std::uint32_t> &column)
{
    column.resize(std::size_t(rows));
    std::fill(column.begin() + fromRow, column.end(), 0U);
    stack.forEachBand(
        rows, bytesPerPixel,
        [&](int from, int to, std::uint32_t allocation) {
            for (int row = from; row < to; ++row)
                column[std::size_t(row)] = allocation + 1;
        },
        fromRow);
}

} // namespace

class TestAllocations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bandsAddUpToTheCurve_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("stride");
        for (const char *file : {"basic_p4.pickle", "oom.pickle", "expandable.pickle", "legacy.pickle"}) {
            QTest::addRow("%s", file) << file << 0;
            QTest::addRow("%s, checkpoint every 7", file) << file << 7;
        }
    }
    void bandsAddUpToTheCurve()
    {
        QFETCH(QString, file);
        QFETCH(int, stride);
        const auto s = loadSnapshot(kDir / file.toStdString()).value();
        for (const auto &d : replay(*s)) {
            const auto a = allocations(*s, d, stride);
            QCOMPARE(a.positions(), std::int64_t(d.events.size()));
            AllocationStack stack(a);
            QCOMPARE(stack.total(), d.activeAtStart);
            std::string why;
            for (std::int64_t p = -1; p < a.positions(); ++p) {
                stack.moveTo(p);
                QCOMPARE(stack.total(), activeAt(d, p));
                QVERIFY2(bandsAreStacked(stack, a, why), why.c_str());
            }
            // The live bands are liveAt's blocks.
            for (const std::int64_t p : {std::int64_t(-1), d.peakPosition, a.positions() / 2, a.positions() - 1}) {
                stack.moveTo(p);
                const auto live = liveAt(*s, d, p);
                std::size_t count = 0;
                for (std::uint32_t i = 0; i < a.count(); ++i) {
                    if (!stack.isLive(i))
                        continue;
                    ++count;
                    const auto block = std::find_if(live.begin(), live.end(),
                                                    [&](const LiveBlock &b) { return b.address == a.address[i]; });
                    QVERIFY(block != live.end());
                    QCOMPARE(block->size, a.size[i]);
                    QCOMPARE(block->position, a.allocated[i]);
                }
                QCOMPARE(count, live.size());
            }
        }
    }

    // Anywhere, in any order: the same stack as walked from the start.
    void movesAnywhere()
    {
        const auto s = loadSnapshot(kDir / "basic_p4.pickle").value();
        const auto devices = replay(*s);
        const auto &d = devices[0];
        const auto a = allocations(*s, d, 5);
        QVERIFY(a.checkpoints.size() > 10);
        AllocationStack stack(a);
        std::mt19937 random(7);
        std::uniform_int_distribution<std::int64_t> any(-1, a.positions() - 1);
        std::string why;
        for (int i = 0; i < 300; ++i) {
            const auto p = i % 3 == 0 ? stack.position() - 1 - (i % 11) : any(random); // back a little, or anywhere
            stack.moveTo(p);
            const auto at = std::clamp<std::int64_t>(p, -1, a.positions() - 1);
            QCOMPARE(stack.position(), at);
            QCOMPARE(stack.total(), activeAt(d, at));
            QVERIFY2(bandsAreStacked(stack, a, why), why.c_str());
        }
    }

    // A column drawn from the one before it, with only the rows above what changed in between
    // walked again, is the column drawn whole: at every zoom (bands of many pixels to many bands a
    // pixel), moving forward a few events or many, back, or through checkpoints.
    void aColumnFromTheOneBeforeIsTheWholeColumn_data()
    {
        QTest::addColumn<double>("bytesPerPixel");
        QTest::addColumn<int>("step");
        for (const double bytesPerPixel : {512.0, 32768.0, 1048576.0})
            for (const int step : {1, 40, 3000, -25})
                QTest::addRow("%.0f B/px, step %d", bytesPerPixel, step) << bytesPerPixel << step;
    }
    void aColumnFromTheOneBeforeIsTheWholeColumn()
    {
        QFETCH(double, bytesPerPixel);
        QFETCH(int, step);
        const auto a = simulated(40000, 1024, 11);
        QVERIFY(a.count() > 20000);
        constexpr int kRows = 400;
        AllocationStack stack(a), whole(a);
        std::vector<std::uint32_t> column, expected;
        std::int64_t position = step > 0 ? a.positions() / 2 : a.positions() - 1;
        int copied = 0, walked = 0; // rows copied from the column before, and rows with a band walked again
        for (int c = 0; c < 200; ++c, position += step) {
            position = std::clamp<std::int64_t>(position, -1, a.positions() - 1);
            stack.moveTo(position);
            const int from = c == 0 ? 0 : stack.unchangedRows(kRows, bytesPerPixel);
            QVERIFY(from >= 0 && from <= kRows);
            paintColumn(stack, kRows, bytesPerPixel, from, column);
            stack.markDrawn();
            whole.moveTo(position);
            paintColumn(whole, kRows, bytesPerPixel, 0, expected);
            QVERIFY2(column == expected,
                     qPrintable(QStringLiteral("column %1 at %2, from row %3").arg(c).arg(position).arg(from)));
            copied += from;
            walked += int(std::count_if(column.begin() + from, column.end(), [](auto band) { return band != 0; }));
        }
        // Forward by an event, most of a column is the one before (an allocation adds at the top;
        // a free drops what was above it).
        if (step == 1)
            QVERIFY2(copied > walked, qPrintable(QStringLiteral("%1 rows copied, %2 walked").arg(copied).arg(walked)));
    }

    // The highest position of any range, found from whole blocks, is the one a scan finds (the
    // first of equals).
    void theHighestOfARangeIsTheScansHighest()
    {
        const auto s = loadSnapshot(kDir / "oom.pickle").value();
        const auto devices = replay(*s);
        const auto &d = devices[0];
        const auto a = allocations(*s, d);
        const auto n = std::int64_t(d.events.size());
        QVERIFY(n > 2 * Allocations::kPeakBlock);
        QCOMPARE(std::int64_t(a.blockPeaks.size()), (n + Allocations::kPeakBlock - 1) / Allocations::kPeakBlock);
        for (std::int64_t first = 0; first < n; first += 3) {
            for (std::int64_t last = first; last < n; last += 7) {
                std::int64_t best = first;
                for (std::int64_t p = first + 1; p <= last; ++p)
                    best = d.active[std::size_t(p)] > d.active[std::size_t(best)] ? p : best;
                QCOMPARE(highestIn(d, a, first, last), best);
            }
        }
    }

    // A freed allocation's band leaves, and the ones above it drop by its size.
    void aFreeDropsTheBandsAbove()
    {
        const auto s = loadSnapshot(kDir / "basic_p4.pickle").value();
        const auto devices = replay(*s);
        const auto &d = devices[0];
        const auto a = allocations(*s, d);
        AllocationStack stack(a);
        std::size_t checked = 0;
        for (std::int64_t p = 0; p < a.positions(); ++p) {
            const auto removed = a.removed[std::size_t(p)];
            stack.moveTo(p - 1);
            if (removed == 0 || a.added[std::size_t(p)] != 0)
                continue;
            const auto gone = removed - 1;
            std::vector<std::pair<std::uint32_t, std::int64_t>> above; // live above it, and their bottoms
            for (std::uint32_t i = gone + 1; i < a.count(); ++i)
                if (stack.isLive(i))
                    above.emplace_back(i, stack.below(i));
            stack.moveTo(p);
            QVERIFY(!stack.isLive(gone));
            for (const auto &[i, bottom] : above)
                QCOMPARE(stack.below(i), bottom - a.size[gone]);
            checked += above.empty() ? 0 : 1;
        }
        QVERIFY(checked > 5);
    }
};

QTEST_GUILESS_MAIN(TestAllocations)
#include "tst_allocations.moc"
