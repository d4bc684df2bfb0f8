#include "ui/timeline/drawlist.h"

#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <thread>

namespace pyrometer::ui::timeline {

namespace {

// Events narrower than this many pixels are merged with their neighbours.
constexpr double kMinWidth = 1.0;

// std::floor and std::ceil as integers, for values within the integer's range: on x86-64 without
// SSE4.1 the std functions are calls into libm, and a zoomed-out frame makes hundreds of
// thousands of them (a few per pixel column and row, and per box when painting).
std::int64_t floorInt(double x)
{
    const auto truncated = static_cast<std::int64_t>(x);
    return truncated - (double(truncated) > x);
}
int floorInt(float x)
{
    const auto truncated = static_cast<int>(x);
    return truncated - (float(truncated) > x);
}
int ceilInt(float x)
{
    const auto truncated = static_cast<int>(x);
    return truncated + (float(truncated) < x);
}

std::int64_t timeAt(const Viewport &viewport, double x)
{
    return floorInt(viewport.toNs(x));
}

float clampX(double x, const Viewport &viewport)
{
    return static_cast<float>(std::clamp(x, -2.0, double(viewport.width) + 2.0));
}

// The share of [t0, t1) that positions [from, to) of a row cover.
double shareBusy(const SliceRow &row, std::uint32_t from, std::uint32_t to, std::int64_t t0, std::int64_t t1)
{
    return double(row.busyIn(from, to, t0, t1)) / double(std::max<std::int64_t>(1, t1 - t0));
}

// Where a box of a pixel column busy `share` of its time goes in its row: standing on the
// row's bottom (above the gap every box leaves under it), at least a pixel tall.
std::pair<int, int> columnGeometry(int rowY, int rowHeight, double share)
{
    const int full = std::max(1, rowHeight - 1);
    const int drawn = std::clamp(int(share * full + 0.5), 1, full);
    return {rowY + full - drawn, drawn + 1};
}

// How many pixel columns ahead the per-event data a column ends in is fetched: zoomed out,
// each column's ends are cache misses, which the columns built meanwhile hide.
constexpr int kFetchAhead = 4;

// One slice row's boxes, left to right: event by event where the row's events are few to a
// pixel column, else from its summary (SliceRow::summary), a few buckets a column.
class SliceRowBuilder {
public:
    SliceRowBuilder(const TimelineIndex &index, const LayoutRow &layoutRow, const Viewport &viewport,
                    EventColors &colors, ColorMode colorMode, DrawList &list)
        : m_row(index.rows[layoutRow.ref]), m_track(index.trace->track(m_row.trackId)), m_layoutRow(layoutRow),
          m_viewport(viewport), m_colors(colors), m_colorMode(colorMode), m_list(list),
          m_n(std::uint32_t(m_row.size())), m_minWideNs(kMinWidth * viewport.nsPerPixel),
          m_y(layoutRow.y - viewport.scrollY)
    {
    }

    void build()
    {
        if (const auto *level = m_row.summaryFor(m_viewport.nsPerPixel)) {
            summarized(*level);
            return;
        }
        m_i = m_row.firstEndingAfter(timeAt(m_viewport, 0));
        exact(m_viewport.endNs());
    }

private:
    bool isWide(std::uint32_t i) const { return double(m_row.durationAt(i)) >= m_minWideNs; }
    // The colour of an event: a block's longest has it at hand.
    std::uint32_t colorOf(std::uint32_t position)
    {
        const auto &block = m_row.blocks[position / SliceRow::kBlock];
        return block.longest == position ? indexedColor(block.colors[int(m_colorMode)])
                                         : m_colors(m_track, m_row.events[position]);
    }

    // A pixel column of sub-pixel events, positions [position, next), busy `share` of its time
    // and coloured like its longest, `event`. A column like the one before it widens that one's
    // box: zoomed out, rows are runs of columns alike, and one box for each would cost as much
    // to paint as to build.
    void addColumn(int column, double share, std::uint32_t color, std::uint32_t position, std::uint32_t next,
                   std::uint32_t event, std::int64_t duration)
    {
        const auto [boxY, boxHeight] = columnGeometry(m_y, m_layoutRow.height, share);
        auto *previous = m_list.boxes.empty() ? nullptr : &m_list.boxes.back();
        if (previous && previous->column && previous->row == m_layoutRow.ref && previous->x1 == float(column) &&
            previous->y == boxY && previous->color == color) {
            previous->x1 = float(column + 1);
            previous->count = next - previous->position;
            if (duration > m_runLongest) {
                m_runLongest = duration;
                previous->event = event;
            }
        } else {
            m_runLongest = duration;
            m_list.boxes.push_back({float(column), float(column + 1), boxY, boxHeight, color, m_layoutRow.ref, position,
                                    next - position, event, true});
        }
        count(position, next);
        m_lastColumn = column;
    }

    // Counts positions [from, to) in the list's eventsDrawn, but those counted already: a
    // column's first event may have begun in the column before, and where the row goes from its
    // summary to its events and back, columns' ends may overlap.
    void count(std::uint32_t from, std::uint32_t to)
    {
        if (to > m_counted) {
            m_list.eventsDrawn += to - std::max(from, m_counted);
            m_counted = to;
        }
    }

    // Event by event from position m_i on, the events starting before endNs.
    void exact(double endNs)
    {
        const auto &row = m_row;
        const auto n = m_n;
        const auto &viewport = m_viewport;
        auto i = m_i;
        std::uint32_t fetchBlock = i / SliceRow::kBlock;
        while (i < n) {
            const double start = double(row.starts[i]);
            if (start >= endNs)
                break;
            if (isWide(i)) {
                const double end = double(row.endAt(i));
                m_list.boxes.push_back({clampX(viewport.toX(start), viewport), clampX(viewport.toX(end), viewport),
                                        m_y, m_layoutRow.height, colorOf(i), m_layoutRow.ref, i, 1, row.events[i],
                                        false});
                count(i, i + 1);
                ++i;
                // Built from the summary, the row goes on event by event to the end of the
                // column the wide event ends in, whose buckets it overlaps.
                m_wideEndColumn = int(floorInt(std::clamp(viewport.toX(end), -1.0, double(viewport.width))));
                if (endNs < end)
                    endNs = std::min(viewport.endNs(), viewport.toNs(m_wideEndColumn + 1));
                continue;
            }
            // A sub-pixel event: the column it starts in, or the next one when it began in the
            // column drawn last and runs into this one.
            const int column = std::max({int(floorInt(std::max(viewport.toX(start), -1.0))), m_lastColumn + 1, 0});
            if (column >= viewport.width)
                break;
            const auto t0 = timeAt(viewport, column);
            const auto t1 = timeAt(viewport, column + 1);
            fetchBlock = row.lastBlockBefore(timeAt(viewport, column + 1 + kFetchAhead),
                                             std::max(fetchBlock, i / SliceRow::kBlock));
            for (const auto position :
                 {fetchBlock * SliceRow::kBlock, fetchBlock * SliceRow::kBlock + SliceRow::kBlock / 2}) {
                __builtin_prefetch(row.starts.data() + std::min(position, n - 1));
                __builtin_prefetch(row.busyBefore.data() + std::min(position, n - 1));
            }
            // Events [i, next) start before the column's end. Only the last of them can be wide
            // (it would reach past the column): it is drawn as itself.
            auto next = row.firstStartingFrom(t1, i + 1);
            const bool wideNext = next - 1 > i && isWide(next - 1);
            if (wideNext)
                --next;
            const auto [longest, longestDuration] =
                next - i == 1 ? SliceRow::Longest{i, row.durationAt(i)} : row.longestIn(i, next);
            addColumn(column, shareBusy(row, i, next, t0, t1), colorOf(longest), i, next, row.events[longest],
                      longestDuration);
            // The column's last event may run on into the next column.
            const bool carried = !wideNext && row.endAt(next - 1) > t1;
            i = carried ? next - 1 : next;
        }
        m_i = i;
    }

    // Column by column from the summary's level: the column's ends snap to the level's bucket
    // edges. Where a wide event overlaps a column's buckets, the row is built event by event from
    // that column to the end of the wide event's, so that it is drawn as itself.
    void summarized(const SliceRow::SummaryLevel &level)
    {
        const auto &buckets = level.buckets;
        const auto origin = m_row.summaryOrigin;
        const auto bucketCount = std::uint32_t(level.count());
        // The bucket time t falls in, clamped to [0, bucketCount] (SummaryLevel::bucketOf, with
        // the count read once).
        const auto bucketOf = [&](std::int64_t t) {
            return t <= origin ? 0 : std::uint32_t(std::min<std::int64_t>((t - origin) >> level.shift, bucketCount));
        };
        const int firstColumn = int(std::clamp(std::floor(m_viewport.toX(double(origin))), 0.0, double(m_viewport.width)));
        auto columnEnd = bucketOf(timeAt(m_viewport, firstColumn)); // the bucket the next column starts in
        for (int c = firstColumn; c < m_viewport.width; ++c) {
            const auto b0 = columnEnd;
            if (b0 >= bucketCount)
                break;
            columnEnd = bucketOf(timeAt(m_viewport, c + 1));
            const auto b1 = std::max(b0 + 1, columnEnd);
            auto top = b0; // the bucket of the longest event, the first of equals
            std::uint32_t busy = 0;
            for (auto b = b0; b < b1; ++b) {
                busy += buckets[b].busy;
                if (buckets[b].longestDuration > buckets[top].longestDuration)
                    top = b;
            }
            const auto &longest = buckets[top];
            if (longest.longestDuration < 0)
                continue; // nothing in the column
            if (double(longest.longestDuration) >= m_minWideNs) {
                // From the first event of the column's buckets, as the column would have had,
                // but for those an earlier pass drew (a wide event the snapped buckets reach back to).
                m_i = std::max(m_i, std::uint32_t(buckets[b0].firstEnding));
                exact(double(timeAt(m_viewport, c + 1)));
                c = std::max({c, m_lastColumn, m_wideEndColumn});
                columnEnd = bucketOf(timeAt(m_viewport, c + 1));
                continue;
            }
            // The last column counts the events of the bucket its end falls in too: both edges of
            // the view then round outwards, and every event shown is counted.
            const auto &last = buckets[c + 1 == m_viewport.width ? std::min(b1 + 1, bucketCount) : b1];
            addColumn(c, busy / (SliceRow::kBusyScale * (b1 - b0)), indexedColor(longest.colors[int(m_colorMode)]),
                      buckets[b0].firstEnding, last.firstEnding + last.crossing, SliceRow::kNoEvent,
                      std::int64_t(longest.longestDuration));
        }
    }

    const SliceRow &m_row;
    const trace::Track &m_track;
    const LayoutRow &m_layoutRow;
    const Viewport &m_viewport;
    EventColors &m_colors;
    ColorMode m_colorMode;
    DrawList &m_list;
    const std::uint32_t m_n;
    const double m_minWideNs;
    const int m_y;
    std::uint32_t m_i = 0;          // the next event to build, event by event
    int m_lastColumn = -1;          // the last pixel column drawn by occupancy
    int m_wideEndColumn = -1;       // the column the last wide event drawn ends in
    std::uint32_t m_counted = 0;    // positions before it are counted in eventsDrawn
    std::int64_t m_runLongest = -1; // the longest duration in the column box being extended
};

void buildSliceRow(const TimelineIndex &index, const LayoutRow &layoutRow, const Viewport &viewport,
                   EventColors &colors, ColorMode colorMode, DrawList &list)
{
    SliceRowBuilder(index, layoutRow, viewport, colors, colorMode, list).build();
}

// A zoomed-out counter column is read from buckets of its summary at most 1/8 of a column
// long: its ends round out to the buckets' by less than that on each side.
constexpr double kCounterColumnBuckets = 8;

// A counter row from its summary's level, a column from the buckets it overlaps: the column's
// ends round out to the buckets', so a peak is never lost, and shows at most a bucket early or
// late.
void summarizedCounterRow(std::int64_t origin, const TimelineIndex::CounterSummary::Level &level,
                          const trace::CounterSeries &series, const Viewport &viewport, CounterPlot &plot)
{
    const auto &buckets = level.share;
    const auto count = buckets.size();
    // The bucket time t falls in, clamped to [0, count].
    const auto bucketOf = [&](std::int64_t t) {
        return t <= origin ? 0 : std::size_t(std::min<std::int64_t>((t - origin) >> level.shift, std::int64_t(count)));
    };
    const auto last = float(series.value.back() / plot.maxValue); // in force past the last bucket
    for (int x = 0; x < viewport.width; ++x) {
        const auto from = timeAt(viewport, x);
        const auto to = timeAt(viewport, x + 1);
        if (to <= origin)
            continue; // before the first sample
        const auto first = bucketOf(from);
        const auto end = std::min(bucketOf(to - 1) + 1, count);
        auto value = first < count ? buckets[first] : last;
        for (auto b = first + 1; b < end; ++b)
            value = std::max(value, buckets[b]);
        plot.points.emplace_back(float(x), value);
    }
}

void buildCounterRow(const TimelineIndex &index, const LayoutRow &layoutRow, const Viewport &viewport, DrawList &list)
{
    const auto &series = index.counter(layoutRow.ref);
    const double maxValue = index.counterMax[layoutRow.ref];
    CounterPlot plot{layoutRow.y - viewport.scrollY, layoutRow.height, layoutRow.ref, maxValue, {}};
    const auto &time = series.time;
    if (time.empty() || maxValue <= 0) {
        list.counters.push_back(std::move(plot));
        return;
    }
    plot.points.reserve(std::size_t(viewport.width));
    const auto &summary = index.counterSummaries[layoutRow.ref];
    if (const auto *level = summary.levelFor(viewport.nsPerPixel / kCounterColumnBuckets)) {
        summarizedCounterRow(summary.origin, *level, series, viewport, plot);
        list.counters.push_back(std::move(plot));
        return;
    }
    // A step function: the value holds from its sample to the next. Per pixel column, the
    // largest value in force during it. Zoomed out, a column holds hundreds of samples: its
    // ends are found among the blocks (kCounterBlock samples each) and then in one block, and
    // whole blocks in it give their maxima, and whole runs of kCounterBlock blocks theirs,
    // O(pixels · log n + samples in view / kCounterBlock²).
    const auto &blocks = index.counterBlocks[layoutRow.ref];
    constexpr auto kBlock = TimelineIndex::kCounterBlock;
    const auto &coarse = index.counterCoarseMax[layoutRow.ref];
    const auto n = time.size();
    // The first sample from `from` on at or after t (strictly after it, with `after`).
    std::size_t block = 0;
    const auto firstFrom = [&](std::size_t from, std::int64_t t, bool after) {
        const auto before = [&](std::int64_t sample) { return after ? sample <= t : sample < t; };
        block = gallop(std::max(block, from / kBlock) + 1, blocks.size(),
                       [&](std::size_t b) { return before(blocks[b].start); }) -
                1;
        return gallop(std::max(from, block * kBlock), n, [&](std::size_t i) { return before(time[i]); });
    };
    // The largest of blocks [b, end), whole runs of kCounterBlock of them from coarse.
    const auto blocksMax = [&](std::size_t b, std::size_t end) {
        double value = 0;
        for (; b < end && b % kBlock != 0; ++b)
            value = std::max(value, blocks[b].max);
        for (; b + kBlock <= end; b += kBlock)
            value = std::max(value, coarse[b / kBlock]);
        for (; b < end; ++b)
            value = std::max(value, blocks[b].max);
        return value;
    };
    std::size_t first = 0; // the sample in force at the column's start, from column to column
    for (int x = 0; x < viewport.width; ++x) {
        const auto from = timeAt(viewport, x);
        const auto to = timeAt(viewport, x + 1);
        // A column over two blocks or more is read from the blocks alone, its ends rounded out to
        // the blocks they fall in: no sample is read (on a view shown the first time, each
        // would be a cache miss), a peak is never lost, and one shows at most a column early or
        // late (less than a block from the column, and a column holds two or more).
        const auto firstBlock = gallop(std::max(block, first / kBlock) + 1, blocks.size(),
                                       [&](std::size_t b) { return blocks[b].start <= from; }) -
                                1;
        const auto endBlock =
            gallop(firstBlock + 1, blocks.size(), [&](std::size_t b) { return blocks[b].start < to; });
        if (endBlock >= firstBlock + 3) {
            block = firstBlock;
            first = firstBlock * kBlock;
            plot.points.emplace_back(float(x), float(blocksMax(firstBlock, endBlock) / maxValue));
            continue;
        }
        first = firstFrom(first, from, true);
        if (first > 0)
            --first; // the sample in force at the column's start
        else if (time[0] >= to)
            continue; // before the first sample
        const auto last = firstFrom(first, to, false);
        // Zoomed out, each column's ends are cache misses in the samples: those of a few
        // columns on, at this column's pace, are fetched meanwhile.
        if (last > first + kBlock) {
            const auto ahead = std::min(n - 1, last + (last - first) * kFetchAhead);
            __builtin_prefetch(time.data() + ahead);
            __builtin_prefetch(series.value.data() + ahead);
            __builtin_prefetch(blocks.data() + ahead / kBlock);
        }
        double value = 0;
        auto i = first;
        for (; i < last && i % kBlock != 0; ++i)
            value = std::max(value, series.value[i]);
        const auto wholeBlocks = (last - i) / kBlock;
        value = std::max(value, blocksMax(i / kBlock, i / kBlock + wholeBlocks));
        for (i += wholeBlocks * kBlock; i < last; ++i)
            value = std::max(value, series.value[i]);
        plot.points.emplace_back(float(x), float(value / maxValue));
    }
    list.counters.push_back(std::move(plot));
}

} // namespace

namespace {

void buildRow(const TimelineIndex &index, const LayoutRow &row, const Viewport &viewport, EventColors &colors,
              ColorMode colorMode, DrawList &list)
{
    if (row.kind == RowKind::Slices)
        buildSliceRow(index, row, viewport, colors, colorMode, list);
    else if (row.kind == RowKind::Counter)
        buildCounterRow(index, row, viewport, list);
}

// Events in view on a slice row.
std::size_t eventsInView(const TimelineIndex &index, const LayoutRow &layoutRow, const Viewport &viewport)
{
    if (layoutRow.kind != RowKind::Slices)
        return 0;
    const auto &row = index.rows[layoutRow.ref];
    if (!row.summary.empty()) {
        // About as many: those of the buckets the view overlaps, at the coarsest level that cuts
        // the view in 8 or more, read from a few cache lines where a search of a long row would
        // miss the cache at every probe.
        const auto *chosen = row.summaryFor(viewport.nsPerPixel * viewport.width / 8);
        const auto &level = chosen ? *chosen : row.summary.front();
        const auto first = level.bucketOf(timeAt(viewport, 0), row.summaryOrigin);
        const auto last = std::min<std::size_t>(level.bucketOf(timeAt(viewport, viewport.width), row.summaryOrigin) + 1,
                                                level.count());
        return level.buckets[last].firstEnding - level.buckets[first].firstEnding;
    }
    const auto from = row.firstEndingAfter(timeAt(viewport, 0));
    const auto to = std::partition_point(row.starts.begin() + from, row.starts.end(),
                                         [&](std::int64_t start) { return double(start) < viewport.endNs(); });
    return std::size_t(to - row.starts.begin()) - from;
}

// The rows of a frame, taken one at a time by two threads from either end: this one from the
// front, a helper from the back, until they meet. A helper that starts late, or not at all (its
// thread busy), takes fewer rows or none, and no thread waits for another but for the row it is
// building: work split in advance waits for the slower half, and on a shared machine a thread
// woken for a frame may start a few hundred microseconds late.
class RowClaims {
public:
    RowClaims(int first, int last) : m_ends(pack(first, last)) {}
    int front() { return claim(true); }
    int back() { return claim(false); }

private:
    static std::uint64_t pack(int front, int back) { return std::uint64_t(std::uint32_t(front)) << 32 | std::uint32_t(back); }
    // The row taken, or -1 when none is left.
    int claim(bool fromFront)
    {
        auto ends = m_ends.load(std::memory_order_relaxed);
        for (;;) {
            const int front = int(ends >> 32);
            const int back = int(std::uint32_t(ends));
            if (front >= back)
                return -1;
            const auto next = fromFront ? pack(front + 1, back) : pack(front, back - 1);
            if (m_ends.compare_exchange_weak(ends, next, std::memory_order_relaxed))
                return fromFront ? front : back - 1;
        }
    }
    std::atomic<std::uint64_t> m_ends; // the next row from the front, and one past the next from the back
};

// The helper's side of a frame, shared with its task, which may run after the frame is built:
// a task that starts once the frame no longer waits for it finds it cancelled and touches
// nothing else.
struct HelperShare {
    enum State { Waiting, Running, Done, Cancelled };
    HelperShare(int first, int last) : claims(first, last) {}
    std::atomic<int> state{Waiting};
    std::atomic<int> rowsBuilt{0};
    RowClaims claims;
    // Per row the helper built, in the order built (the last rows first): the scratch list's
    // boxes and counters after it.
    std::vector<std::pair<std::size_t, std::size_t>> rowEnds;
};

// The helper's thread: one, kept parked between frames, so that a frame wakes a thread rather
// than starting one.
QThreadPool &helperPool()
{
    static QThreadPool *const pool = [] {
        auto *created = new QThreadPool; // never destroyed: an idle parked thread holds nothing at exit
        created->setMaxThreadCount(1);
        created->setExpiryTimeout(-1);
        return created;
    }();
    return *pool;
}

} // namespace

DrawList buildDrawList(const TimelineIndex &index, const TimelineLayout &layout, const Viewport &viewport,
                       ColorMode colorMode, std::size_t parallelEvents)
{
    DrawList list;
    DrawList scratch;
    buildDrawList(index, layout, viewport, colorMode, list, scratch, parallelEvents);
    return list;
}

void buildDrawList(const TimelineIndex &index, const TimelineLayout &layout, const Viewport &viewport,
                   ColorMode colorMode, DrawList &list, DrawList &scratch, std::size_t parallelEvents)
{
    const auto clear = [](DrawList &l) {
        l.boxes.clear();
        l.counters.clear();
        l.steps.clear();
        l.eventsDrawn = 0;
        l.rowsBeside = 0;
    };
    clear(list);
    clear(scratch);
    list.viewport = viewport;
    if (viewport.width <= 0 || viewport.nsPerPixel <= 0)
        return;
    const auto [first, last] = layout.rowsIn(viewport.scrollY, viewport.scrollY + viewport.height);
    // Zoomed out over many events, a helper thread builds rows beside this one (RowClaims).
    std::size_t events = 0;
    for (int r = first; r < last && events < parallelEvents; ++r)
        events += eventsInView(index, layout.rows[std::size_t(r)], viewport);
    const bool parallel = last - first > 1 && events >= parallelEvents && std::thread::hardware_concurrency() > 1;
    EventColors colors(*index.trace, colorMode);
    if (!parallel) {
        for (int r = first; r < last; ++r)
            buildRow(index, layout.rows[std::size_t(r)], viewport, colors, colorMode, list);
    } else {
        const auto share = std::make_shared<HelperShare>(first, last);
        helperPool().start([share, &index, &layout, &viewport, colorMode, &scratch] {
            int waiting = HelperShare::Waiting;
            if (!share->state.compare_exchange_strong(waiting, HelperShare::Running, std::memory_order_acquire))
                return; // the frame was built without it
            EventColors helperColors(*index.trace, colorMode);
            for (int r; (r = share->claims.back()) >= 0;) {
                buildRow(index, layout.rows[std::size_t(r)], viewport, helperColors, colorMode, scratch);
                share->rowEnds.emplace_back(scratch.boxes.size(), scratch.counters.size());
                share->rowsBuilt.fetch_add(1, std::memory_order_release);
            }
            share->state.store(HelperShare::Done, std::memory_order_release);
        });
        // parallelEvents 0: the helper builds a row before this thread starts (tests check with
        // it that rows built beside come out in place).
        while (parallelEvents == 0 && share->rowsBuilt.load(std::memory_order_acquire) == 0)
            std::this_thread::yield();
        for (int r; (r = share->claims.front()) >= 0;)
            buildRow(index, layout.rows[std::size_t(r)], viewport, colors, colorMode, list);
        int waiting = HelperShare::Waiting;
        if (!share->state.compare_exchange_strong(waiting, HelperShare::Cancelled, std::memory_order_acquire)) {
            // It is building its last row: a wait of a row at most, spun rather than slept, as a
            // sleeping thread is woken late.
            while (share->state.load(std::memory_order_acquire) != HelperShare::Done)
                std::this_thread::yield();
            // Its rows, the last first in scratch, go after this thread's in order.
            const auto &ends = share->rowEnds;
            for (std::size_t k = ends.size(); k-- > 0;) {
                const auto [boxesFrom, countersFrom] = k > 0 ? ends[k - 1] : std::pair<std::size_t, std::size_t>{};
                const auto [boxesTo, countersTo] = ends[k];
                list.boxes.insert(list.boxes.end(), scratch.boxes.begin() + std::ptrdiff_t(boxesFrom),
                                  scratch.boxes.begin() + std::ptrdiff_t(boxesTo));
                list.counters.insert(list.counters.end(),
                                     std::make_move_iterator(scratch.counters.begin() + std::ptrdiff_t(countersFrom)),
                                     std::make_move_iterator(scratch.counters.begin() + std::ptrdiff_t(countersTo)));
            }
            list.eventsDrawn += scratch.eventsDrawn;
            list.rowsBeside = ends.size();
        }
    }
    for (const auto &step : index.steps) {
        if (double(step.end) < viewport.startNs || double(step.start) > viewport.endNs())
            continue;
        list.steps.push_back({clampX(viewport.toX(double(step.start)), viewport),
                              clampX(viewport.toX(double(step.end)), viewport), step.name});
    }
}

ColumnContent columnContent(const TimelineIndex &index, const Viewport &viewport, const DrawBox &box)
{
    if (!box.column)
        return {1, 1.0};
    // Worked out again from the row's events: a box built from the row's summary has its ends
    // snapped to the summary's buckets.
    const auto &row = index.rows[box.row];
    const auto t0 = timeAt(viewport, box.x0);
    const auto t1 = timeAt(viewport, box.x1);
    const auto from = row.firstEndingAfter(t0);
    const auto to = row.firstStartingFrom(t1, from);
    return {to - from, shareBusy(row, from, to, t0, t1)};
}

const DrawBox *boxAt(const DrawList &list, std::uint32_t row, double x)
{
    for (const auto &box : list.boxes) {
        if (box.row == row && box.x0 <= x && x < std::max(box.x1, box.x0 + 1.0f))
            return &box;
    }
    return nullptr;
}

namespace {

// Boxes wider than this many pixels give up a pixel column where they touch a neighbour.
constexpr int kGapMinWidth = 3;

// Two boxes side by side in a row read as one bar: one that touches the next box of its row
// ends a pixel earlier, or the next one starts a pixel later when only it is wide enough.
void separateTouching(Fill &a, Fill &b)
{
    if (a.y != b.y || a.height != b.height || b.left > a.right)
        return;
    if (a.right - a.left > kGapMinWidth)
        a.right = std::max(a.left + 1, b.left - 1);
    else if (b.right - b.left > kGapMinWidth)
        b.left = std::min(a.right + 1, b.right - 1);
}

} // namespace

std::vector<Fill> joinedFills(const std::vector<DrawBox> &boxes)
{
    std::vector<Fill> fills;
    appendJoinedFills(boxes, fills);
    return fills;
}

void appendJoinedFills(const std::vector<DrawBox> &boxes, std::vector<Fill> &fills)
{
    // One pass: a box's rectangle is final once the next box is seen (separateTouching may
    // change either), and then joins the last fill or follows it. Zoomed out there are tens of
    // thousands of boxes; a pass per step over arrays of them costs more than the steps.
    const auto start = fills.size(); // fills before it are not joined with the boxes'
    const auto add = [&](const Fill &fill) {
        if (fills.size() > start) {
            auto &last = fills.back();
            if (last.y == fill.y && last.height == fill.height && last.color == fill.color && fill.left <= last.right &&
                fill.right >= last.left) {
                last.left = std::min(last.left, fill.left);
                last.right = std::max(last.right, fill.right);
                return;
            }
        }
        fills.push_back(fill);
    };
    Fill pending;
    bool hasPending = false;
    for (const auto &box : boxes) {
        const int left = floorInt(box.x0);
        Fill fill{left, std::max(left + 1, ceilInt(box.x1)), box.y, box.height, box.color};
        if (hasPending) {
            separateTouching(pending, fill);
            add(pending);
        }
        pending = fill;
        hasPending = true;
    }
    if (hasPending)
        add(pending);
}

} // namespace pyrometer::ui::timeline

namespace pyrometer::ui::timeline {

std::optional<Hit> hitTest(const TimelineIndex &index, const TimelineLayout &layout, const Viewport &viewport, double x,
                           int y, double tolerancePixels)
{
    const int layoutRow = layout.rowAt(y + viewport.scrollY);
    if (layoutRow < 0 || layout.rows[std::size_t(layoutRow)].kind != RowKind::Slices)
        return std::nullopt;
    const auto rowIndex = layout.rows[std::size_t(layoutRow)].ref;
    const auto &row = index.rows[rowIndex];
    const double t = viewport.toNs(x);
    const double slack = tolerancePixels * viewport.nsPerPixel;
    // Candidates: events ending after t - slack and starting before t + slack; the one whose
    // extent is closest to t wins (an event containing t has distance 0).
    std::optional<Hit> best;
    double bestDistance = slack;
    for (auto i = row.firstEndingAfter(static_cast<std::int64_t>(std::floor(t - slack))); i < row.size(); ++i) {
        const auto e = row.events[i];
        const double start = double(row.starts[i]);
        const double end = double(row.endAt(i));
        if (start > t + slack)
            break;
        const double distance = t < start ? start - t : t > end ? t - end : 0.0;
        if (distance <= bestDistance) {
            bestDistance = distance;
            best = Hit{rowIndex, e};
            if (distance == 0)
                break;
        }
    }
    return best;
}

namespace {

struct Unit {
    double ns;
    const char *suffix;
};

std::string formatTick(double ns, double step)
{
    static constexpr Unit kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\xC2\xB5s"}, {1, "ns"}};
    // The unit is chosen by the step, so every label of a ruler shares it.
    const Unit *unit = &kUnits[3];
    for (const auto &candidate : kUnits) {
        if (step >= candidate.ns) {
            unit = &candidate;
            break;
        }
    }
    if (std::abs(ns) < step * 1e-6)
        ns = 0; // no "-0 s" from rounding
    const double scaledStep = step / unit->ns;
    const int decimals = scaledStep >= 1 ? 0 : scaledStep >= 0.1 ? 1 : 2;
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, ns / unit->ns, unit->suffix);
    return buffer;
}

} // namespace

std::vector<Tick> rulerTicks(const Viewport &viewport, double originNs, double minSpacing)
{
    std::vector<Tick> ticks;
    if (viewport.width <= 0 || viewport.nsPerPixel <= 0)
        return ticks;
    const double minStep = viewport.nsPerPixel * minSpacing;
    double step = std::pow(10.0, std::floor(std::log10(minStep)));
    for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
        if (step * factor >= minStep) {
            step *= factor;
            break;
        }
    }
    step = std::max(step, 1.0);
    const double relativeStart = viewport.startNs - originNs;
    for (double t = std::ceil(relativeStart / step) * step; t <= relativeStart + viewport.nsPerPixel * viewport.width;
         t += step)
        ticks.push_back({float((t - relativeStart) / viewport.nsPerPixel), formatTick(t, step)});
    return ticks;
}

std::vector<TickLabel> placeTickLabels(const std::vector<Tick> &ticks, const std::vector<float> &widths,
                                       float areaWidth, float padding, float spacing)
{
    std::vector<TickLabel> labels;
    float previousRight = -spacing;
    for (std::size_t i = 0; i < ticks.size() && i < widths.size(); ++i) {
        if (ticks[i].x < 0 || ticks[i].x > areaWidth)
            continue;
        // Right of its tick, or moved left to end at the edge.
        const float left = std::min(ticks[i].x + padding, areaWidth - widths[i]);
        if (left < previousRight + spacing || left < 0)
            continue;
        labels.push_back({i, left});
        previousRight = left + widths[i];
    }
    return labels;
}

} // namespace pyrometer::ui::timeline
