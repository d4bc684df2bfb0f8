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
