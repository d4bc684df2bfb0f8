#include "ui/timeline/timelineindex.h"

#include "core/analysis/graphreplays.h"

#include "core/analysis/launches.h"
#include "core/util/heap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

namespace pyrometer::ui::timeline {

namespace {

constexpr std::uint32_t kBlock = SliceRow::kBlock;

void buildBlocks(SliceRow &row, const trace::Trace &trace, const trace::Track &track)
{
    const auto n = std::uint32_t(row.size());
    const auto count = (n + kBlock - 1) / kBlock;
    row.blocks.resize(count);
    row.blocks.shrink_to_fit();
    for (std::uint32_t b = 0; b < count; ++b) {
        auto &block = row.blocks[b];
        block.start = row.starts[b * kBlock];
        block.longest = b * kBlock;
        for (std::uint32_t i = block.longest + 1; i < std::min(n, (b + 1) * kBlock); ++i) {
            if (row.durationAt(i) > row.durationAt(block.longest))
                block.longest = i;
        }
        block.longestDuration = row.durationAt(block.longest);
        for (const auto mode : {ColorMode::ByCategory, ColorMode::ByName})
            block.colors[int(mode)] = eventColorIndex(trace, track, row.events[block.longest], mode);
    }
    row.longestAbove.assign(count, 0);
    row.longestAbove.shrink_to_fit();
    const auto duration = [&](std::uint32_t position) { return row.blocks[position / kBlock].longestDuration; };
    const auto node = [&](std::size_t i) { return i < count ? row.longestAbove[i] : row.blocks[i - count].longest; };
    for (std::size_t i = count; i-- > 1;) {
        const auto a = node(2 * i), b = node(2 * i + 1);
        row.longestAbove[i] = duration(b) > duration(a) || (duration(b) == duration(a) && b < a) ? b : a;
    }
}

// The levels of the row's summary (SliceRow::summary): the finest from the events in one sweep
// (each event is read for the buckets it overlaps, and a bucket is overlapped by its own events
// and at most one more), each coarser one from pairs of the level below. `events`: the average
// events of the finest buckets, SliceRow::kSummaryEvents or, for a small row, half of it.
void buildSummary(SliceRow &row, const trace::Trace &trace, const trace::Track &track, std::uint32_t events)
{
    const auto n = std::uint32_t(row.size());
    if (n < SliceRow::kSummaryMinEvents)
        return;
    const std::int64_t origin = row.starts[0];
    const std::int64_t end = std::max(row.endAt(n - 1), origin + 1); // events do not overlap: the last ends last
    // The finest buckets: the power of two at or above `events` average gaps between starts
    // (worked out without multiplying the span, which may be most of 64 bits of nanoseconds).
    const std::int64_t gaps = (end - origin) / n * std::int64_t(events) + 1;
    int shift = 0;
    while (shift < 62 && (std::int64_t(1) << shift) < gaps)
        ++shift;
    const auto width = std::int64_t(1) << shift;
    const auto count = std::uint32_t((end - origin + width - 1) / width);
    row.summaryOrigin = origin;
    auto *const memory = row.events.get_allocator().resource(); // the levels' buckets go beside the row's arrays
    auto &finest = row.summary.emplace_back(SliceRow::SummaryLevel{shift, std::pmr::vector<SliceRow::Bucket>(memory)});
    finest.buckets.resize(std::size_t(count) + 1);
    std::uint32_t p = 0; // the first event ending after the bucket's start
    for (std::uint32_t b = 0; b <= count; ++b) {
        auto &bucket = finest.buckets[b];
        const auto t = origin + std::int64_t(b) * width;
        while (p < n && row.endAt(p) <= t && row.starts[p] < t)
            ++p;
        bucket.firstEnding = p;
        bucket.crossing = p < n && row.starts[p] < t;
        std::int64_t longest = -1;
        std::uint32_t longestAt = 0;
        auto q = p; // past the events overlapping the bucket
        for (; q < n && row.starts[q] < t + width; ++q) {
            if (row.durationAt(q) > longest) {
                longest = row.durationAt(q);
                longestAt = q;
            }
        }
        const auto busy = row.busyIn(p, q, t, t + width);
        bucket.busy = std::uint16_t(std::lround(double(busy) / double(width) * SliceRow::kBusyScale));
        if (longest >= 0) {
            bucket.longestDuration = float(longest);
            for (const auto mode : {ColorMode::ByCategory, ColorMode::ByName})
                bucket.colors[int(mode)] = eventColorIndex(trace, track, row.events[longestAt], mode);
        }
    }
    // Coarser levels down to a few dozen buckets.
    constexpr std::size_t kFewest = 64;
    while (row.summary.back().count() > kFewest) {
        const auto &below = row.summary.back().buckets;
        SliceRow::SummaryLevel level{row.summary.back().shift + 1, std::pmr::vector<SliceRow::Bucket>(memory)};
        const auto halves = (row.summary.back().count() + 1) / 2;
        level.buckets.resize(halves + 1);
        for (std::size_t b = 0; b < halves; ++b) {
            const auto &left = below[2 * b];
            const bool inRow = 2 * b + 1 < below.size() - 1; // else the right half is past the row's end
            const auto &right = below[2 * b + 1];
            auto &bucket = level.buckets[b];
            bucket = left;
            bucket.busy = std::uint16_t((left.busy + (inRow ? right.busy : 0) + 1) / 2);
            if (inRow && right.longestDuration > left.longestDuration) {
                bucket.longestDuration = right.longestDuration;
                std::copy(std::begin(right.colors), std::end(right.colors), bucket.colors);
            }
        }
        level.buckets.back() = below.back(); // past the row's end at either level
        row.summary.push_back(std::move(level));
    }
    for (auto &level : row.summary)
        level.buckets.shrink_to_fit();
}

// A counter's summary (TimelineIndex::CounterSummary), for a counter whose largest value is
// maxValue: the finest level in one sweep of the samples, each coarser one from pairs of the
// level below.
TimelineIndex::CounterSummary buildCounterSummary(const trace::CounterSeries &series, double maxValue)
{
    TimelineIndex::CounterSummary summary;
    const auto n = series.time.size();
    if (n < TimelineIndex::kCounterSummaryMinSamples || maxValue <= 0)
        return summary;
    const auto &time = series.time;
    const auto &value = series.value;
    const std::int64_t origin = time.front();
    summary.origin = origin;
    // The finest buckets: the power of two at or below the span cut in one per sample, or in
    // kCounterSummaryBuckets.
    const std::int64_t span = time.back() - origin;
    const std::int64_t most = span / std::int64_t(std::min(n, TimelineIndex::kCounterSummaryBuckets));
    int shift = 0;
    while (shift < 62 && (std::int64_t(2) << shift) <= most)
        ++shift;
    const auto count = std::size_t(span >> shift) + 1; // the last holds the last sample
    auto &finest = summary.levels.emplace_back(TimelineIndex::CounterSummary::Level{shift, {}}).share;
    finest.resize(count);
    std::size_t i = 0;
    double inForce = value[0];
    for (std::size_t b = 0; b < count; ++b) {
        const auto start = origin + (std::int64_t(b) << shift);
        const auto end = start + (std::int64_t(1) << shift);
        while (i < n && time[i] <= start)
            inForce = value[i++]; // the sample in force at the bucket's start
        double largest = inForce;
        for (; i < n && time[i] < end; ++i) {
            inForce = value[i];
            largest = std::max(largest, inForce);
        }
        finest[b] = float(largest / maxValue);
    }
    // Coarser levels down to a few dozen buckets.
    constexpr std::size_t kFewest = 64;
    while (summary.levels.back().share.size() > kFewest) {
        const auto &below = summary.levels.back().share;
        TimelineIndex::CounterSummary::Level level{summary.levels.back().shift + 1,
                                                   std::vector<float>((below.size() + 1) / 2)};
        for (std::size_t b = 0; b < level.share.size(); ++b)
            level.share[b] = 2 * b + 1 < below.size() ? std::max(below[2 * b], below[2 * b + 1]) : below[2 * b];
        summary.levels.push_back(std::move(level));
    }
    return summary;
}

// Per GPU stream, the queue of launched kernels as a counter in that stream's process.
void addQueueCounters(TimelineIndex &index, std::shared_ptr<const analysis::LaunchStats> launches,
                      const StopToken &stop)
{
    if (!index.analysis->hasDevice)
        return;
    if (!launches)
        launches =
            std::make_shared<const analysis::LaunchStats>(analysis::buildLaunchStats(*index.analysis, {}, &stop));
    const auto &stats = *launches;
    std::map<std::pair<std::int32_t, std::int32_t>, trace::ProcessId> processOf;
    for (const auto &launch : stats.launches)
        processOf.try_emplace({launch.device, launch.stream}, index.trace->track(launch.kernel.track).process);
    for (const auto &queue : stats.queues) {
        const auto process = processOf.find({queue.device, queue.stream});
        if (process == processOf.end() || queue.timeNs.empty())
            continue;
        trace::CounterSeries series;
        series.process = process->second;
        series.name = "launch queue, stream " + std::to_string(queue.stream);
        series.time = queue.timeNs;
        series.value.assign(queue.length.begin(), queue.length.end());
        index.derivedCounters.push_back(std::move(series));
    }
}

// Per GPU stream that runs CUDA graph replays, which graph runs when: the graph's id from its
// first kernel's start to its last kernel's end, 0 between replays, so that a stream's replays
// read as one row beside its kernels.
void addGraphCounters(TimelineIndex &index, const StopToken &stop)
{
    if (!index.analysis->hasDevice)
        return;
    const auto calls = analysis::graphLaunchCalls(*index.analysis, &stop);
    const auto graphs = analysis::buildGraphReplays(*index.analysis, calls, {}, &stop);
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> seriesOf;
    for (const auto &replay : graphs.replays) {
        const auto [it, added] = seriesOf.try_emplace({replay.device, replay.stream}, index.derivedCounters.size());
        if (added) {
            trace::CounterSeries series;
            series.process = index.trace->track(replay.first.track).process;
            series.name = "graph replays, " + analysis::streamName(-1, replay.stream);
            index.derivedCounters.push_back(std::move(series));
        }
        auto &series = index.derivedCounters[it->second];
        const double id = replay.graphId > 0 ? replay.graphId : 1;
        // Back to back with the replay before: its end is this one's start.
        if (!series.time.empty() && series.time.back() == replay.startNs && series.value.back() == 0) {
            series.value.back() = id;
        } else if (series.time.empty() || series.time.back() < replay.startNs) {
            series.time.push_back(replay.startNs);
            series.value.push_back(id);
        } else {
            continue; // overlaps the one before (a graph over several streams shown on one): skipped
        }
        series.time.push_back(replay.endNs);
        series.value.push_back(0);
    }
}

// A counter's largest value, its blocks and its summary, for the counter rows' columns.
void summarizeCounter(TimelineIndex &index, std::uint32_t c)
{
    const auto &counter = index.counter(c);
    index.counterMax.push_back(counter.value.empty() ? 0.0
                                                     : *std::max_element(counter.value.begin(), counter.value.end()));
    constexpr auto kSamplesPerBlock = TimelineIndex::kCounterBlock;
    auto &blocks = index.counterBlocks.emplace_back();
    blocks.reserve((counter.value.size() + kSamplesPerBlock - 1) / kSamplesPerBlock);
    for (std::size_t i = 0; i < counter.value.size(); i += kSamplesPerBlock) {
        const auto values = counter.value.begin() + std::ptrdiff_t(i);
        blocks.push_back(
            {counter.time[i],
             *std::max_element(values, values + std::ptrdiff_t(std::min(kSamplesPerBlock, counter.value.size() - i)))});
    }
    auto &coarse = index.counterCoarseMax.emplace_back();
    coarse.reserve((blocks.size() + kSamplesPerBlock - 1) / kSamplesPerBlock);
    for (std::size_t b = 0; b < blocks.size(); b += kSamplesPerBlock) {
        const auto last = std::min(blocks.size(), b + kSamplesPerBlock);
        coarse.push_back(std::max_element(blocks.begin() + std::ptrdiff_t(b), blocks.begin() + std::ptrdiff_t(last),
                                          [](const auto &x, const auto &y) { return x.max < y.max; })
                             ->max);
    }
    index.counterSummaries.push_back(buildCounterSummary(counter, index.counterMax.back()));
}

} // namespace

SliceRow::Longest SliceRow::longestIn(std::uint32_t from, std::uint32_t to) const
{
    std::uint32_t best = from;
    std::int64_t bestDuration = durationAt(from);
    // Longer wins; of equals, the earlier one, whatever order the candidates come in.
    const auto consider = [&](std::uint32_t candidate, std::int64_t duration) {
        if (duration > bestDuration || (duration == bestDuration && candidate < best)) {
            best = candidate;
            bestDuration = duration;
        }
    };
    // Part of a block: its longest, when that is in the part, else each of the part's events.
    // Zoomed out, a column's ends are such parts, and most of the time no event of theirs is
    // read: the colour of a block's longest is in its record.
    const auto part = [&](std::uint32_t first, std::uint32_t last) {
        const auto &block = blocks[first / kBlock];
        if (block.longest >= first && block.longest < last) {
            consider(block.longest, block.longestDuration);
            return;
        }
        for (auto i = first; i < last; ++i)
            consider(i, durationAt(i));
    };
    const auto firstBlock = (from + kBlock - 1) / kBlock;
    const auto lastBlock = to / kBlock; // whole blocks are [firstBlock, lastBlock)
    if (firstBlock >= lastBlock) {
        // Within a block, or across the boundary of two.
        const auto boundary = std::min(to, (from / kBlock + 1) * kBlock);
        part(from, boundary);
        if (boundary < to)
            part(boundary, to);
        return {best, bestDuration};
    }
    if (from < firstBlock * kBlock)
        part(from, firstBlock * kBlock);
    // A few blocks are read in order; more, through the tree.
    constexpr std::uint32_t kFewBlocks = 32;
    if (lastBlock - firstBlock <= kFewBlocks) {
        for (auto b = firstBlock; b < lastBlock; ++b)
            consider(blocks[b].longest, blocks[b].longestDuration);
    } else {
        const auto count = std::uint32_t(blocks.size());
        const auto visit = [&](std::uint32_t node) {
            const auto position = node < count ? longestAbove[node] : blocks[node - count].longest;
            consider(position, blocks[position / kBlock].longestDuration);
        };
        for (std::uint32_t l = firstBlock + count, r = lastBlock + count; l < r; l >>= 1, r >>= 1) {
            if (l & 1)
                visit(l++);
            if (r & 1)
                visit(--r);
        }
    }
    if (lastBlock * kBlock < to)
        part(lastBlock * kBlock, to);
    return {best, bestDuration};
}

std::int64_t SliceRow::busyIn(std::uint32_t from, std::uint32_t to, std::int64_t t0, std::int64_t t1) const
{
    if (from >= to)
        return 0;
    // Whole durations, less what the first event has before t0 and the last one after t1:
    // events between them lie inside [t0, t1) when these two reach it.
    const auto last = to - 1;
    const auto before = std::clamp(t0 - starts[from], std::int64_t(0), durationAt(from));
    const auto after = std::clamp(endAt(last) - t1, std::int64_t(0), durationAt(last));
    return std::max(std::int64_t(0), busyBefore[to] - busyBefore[from] - before - after);
}

std::uint32_t SliceRow::lastBlockBefore(std::int64_t time, std::uint32_t fromBlock) const
{
    const auto after = gallop(fromBlock + 1, blocks.size(), [&](std::size_t b) { return blocks[b].start < time; });
    return std::uint32_t(after - 1);
}

std::uint32_t SliceRow::firstStartingFrom(std::int64_t time, std::uint32_t from) const
{
    const auto n = std::uint32_t(events.size());
    if (from >= n || starts[from] >= time)
        return from;
    // The answer is in the last block that starts before time, or is the next block's first.
    auto i = std::max(from, lastBlockBefore(time, from / kBlock) * kBlock);
    while (i < n && starts[i] < time)
        ++i;
    return i;
}

std::uint32_t SliceRow::firstEndingAfter(std::int64_t time, std::uint32_t from) const
{
    // Events do not overlap, so every event before the last one starting before `time` ends
    // by then: the answer is that one, when it reaches past `time`, or the next.
    const auto next = firstStartingFrom(time, from);
    return next > from && endAt(next - 1) > time ? next - 1 : next;
}

std::uint32_t TimelineIndex::rowOf(trace::TrackId track, trace::EventIndex event) const
{
    const auto &columns = trace->track(track);
    const auto key = std::make_pair(columns.lane[event.value], columns.depth[event.value]);
    const auto first = rows.begin() + trackFirstRow[track.value];
    const auto found = std::partition_point(first, first + trackRowCount[track.value], [&](const SliceRow &row) {
        return std::make_pair(row.lane, row.depth) < key;
    });
    return std::uint32_t(found - rows.begin());
}

std::size_t TimelineIndex::memoryBytes() const
{
    const auto bytes = [](const auto &vector) { return vector.capacity() * sizeof(vector[0]); };
    std::size_t total = bytes(rows) + bytes(trackFirstRow) + bytes(trackRowCount) + bytes(steps) + bytes(counterMax) +
                        bytes(counterBlocks);
    for (const auto &row : rows) {
        total += bytes(row.events) + bytes(row.starts) + bytes(row.busyBefore) + bytes(row.blocks) +
                 bytes(row.longestAbove) + bytes(row.summary);
        for (const auto &level : row.summary)
            total += bytes(level.buckets);
    }
    for (const auto &blocks : counterBlocks)
        total += bytes(blocks);
    total += bytes(counterCoarseMax);
    for (const auto &coarse : counterCoarseMax)
        total += bytes(coarse);
    total += bytes(counterSummaries);
    for (const auto &summary : counterSummaries) {
        total += bytes(summary.levels);
        for (const auto &level : summary.levels)
            total += bytes(level.share);
    }
    for (const auto &counter : derivedCounters)
        total += bytes(counter.time) + bytes(counter.value) + counter.name.capacity();
    for (const auto &step : steps)
        total += step.name.capacity();
    return total;
}

std::shared_ptr<const TimelineIndex> buildTimelineIndex(std::shared_ptr<const trace::Trace> trace,
                                                        const StopToken &stop,
                                                        std::shared_ptr<const analysis::TraceIndex> analysis,
                                                        std::shared_ptr<const analysis::LaunchStats> launches)
{
    auto index = std::make_shared<TimelineIndex>();
    index->trace = trace;
    // The rows' arrays, about 28 bytes an event (memoryBytes), in one block where that is enough.
    std::size_t events = 0;
    for (const auto &track : trace->tracks)
        events += track.size();
    // Huge pages for a few of them or more: a small index's would be mostly unused.
    const auto bytes = std::max<std::size_t>(events * 28, 1 << 16);
    index->memory = std::make_shared<std::pmr::monotonic_buffer_resource>(
        bytes, bytes >= (std::size_t(8) << 20) ? hugePageResource() : std::pmr::new_delete_resource());
    index->trackFirstRow.resize(trace->tracks.size());
    index->trackRowCount.resize(trace->tracks.size());
    // Rows of at most 1/64 of the events, an eighth of them in all (first come), get finest
    // buckets of half as many events: a small row among long ones, as a CPU thread's deeper
    // levels beside GPU streams, has too few events for its finest level to be as fine as a
    // column of views a long row already reads from its summary, and was built event by event,
    // some 2 events a column (a 7,580-event row at 1/2 of a 19 M-event trace: 0.058 ms against
    // 0.021 for a long row from its summary). At most 6 bytes more for an eighth of the events.
    std::size_t finerLeft = events / 8;

    for (std::size_t t = 0; t < trace->tracks.size(); ++t) {
        if (stop.stopRequested())
            return nullptr;
        const auto &track = trace->tracks[t];
        // Rows of this track, one per (lane, depth), ordered by lane then depth.
        const auto keyOf = [&](std::size_t e) { return std::uint32_t(track.lane[e]) << 16 | track.depth[e]; };
        std::vector<std::uint32_t> keys;
        for (std::size_t e = 0; e < track.size(); ++e) {
            // Consecutive events mostly share a row or alternate between a few: skip the
            // ones seen just before, sort and deduplicate the rest.
            if (keys.empty() || keys.back() != keyOf(e))
                keys.push_back(keyOf(e));
            if (keys.size() > 4096) {
                std::sort(keys.begin(), keys.end());
                keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
            }
        }
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        const auto first = std::uint32_t(index->rows.size());
        index->trackFirstRow[t] = first;
        index->trackRowCount[t] = std::uint32_t(keys.size());
        const auto rowOf = [&](std::size_t e) {
            return first + std::uint32_t(std::lower_bound(keys.begin(), keys.end(), keyOf(e)) - keys.begin());
        };
        // Sizes first, so that every array is allocated once at its size: growing them by
        // doubling would leave up to half of them unused.
        std::vector<std::uint32_t> counts(keys.size(), 0);
        for (std::size_t e = 0; e < track.size(); ++e)
            ++counts[rowOf(e) - first];
        for (std::size_t k = 0; k < keys.size(); ++k) {
            SliceRow row(index->memory.get());
            row.trackId = trace::TrackId(std::uint32_t(t));
            row.lane = std::uint16_t(keys[k] >> 16);
            row.depth = std::uint16_t(keys[k] & 0xffff);
            row.events.reserve(counts[k]);
            row.starts.reserve(counts[k]);
            row.busyBefore.reserve(counts[k] + 1);
            row.busyBefore.push_back(0);
            index->rows.push_back(std::move(row));
        }
        for (std::size_t e = 0; e < track.size(); ++e) {
            auto &row = index->rows[rowOf(e)];
            row.events.push_back(std::uint32_t(e)); // track order is start order
            row.starts.push_back(track.start[e]);
            row.busyBefore.push_back(row.busyBefore.back() + track.duration[e]);
        }
        for (std::uint32_t r = first; r < index->rows.size(); ++r) {
            buildBlocks(index->rows[r], *trace, track);
            const auto n = index->rows[r].size();
            const bool finer = n <= events / 64 && n <= finerLeft;
            finerLeft -= finer ? n : 0;
            buildSummary(index->rows[r], *trace, track,
                         finer ? SliceRow::kSummaryEvents / 2 : SliceRow::kSummaryEvents);
        }

        for (std::size_t e = 0; e < track.size(); ++e) {
            const auto name = trace->string(track.eventName[e]);
            if (name.starts_with("ProfilerStep#") && track.depth[e] <= 1)
                index->steps.push_back({track.start[e], track.start[e] + track.duration[e], std::string(name)});
        }
    }
    std::sort(index->steps.begin(), index->steps.end(), [](const auto &a, const auto &b) { return a.start < b.start; });
    // GPU annotations repeat the CPU's steps: keep one per name.
    std::vector<TimelineIndex::Step> unique;
    std::set<std::string> seen;
    for (auto &step : index->steps) {
        if (seen.insert(step.name).second)
            unique.push_back(std::move(step));
    }
    index->steps = std::move(unique);

    index->analysis = analysis ? std::move(analysis) : analysis::buildTraceIndex(*trace, &stop);
    if (!index->analysis)
        return nullptr;
    addQueueCounters(*index, std::move(launches), stop);
    addGraphCounters(*index, stop);
    for (std::uint32_t c = 0; c < index->counterCount(); ++c)
        summarizeCounter(*index, c);
    index->spanStart = trace->info.spanStart;
    index->spanEnd = std::max(trace->info.spanEnd, trace->info.spanStart + 1);
    return index;
}

std::shared_ptr<const TimelineIndex> withCounters(const TimelineIndex &index,
                                                  std::vector<trace::CounterSeries> counters)
{
    auto copy = std::make_shared<TimelineIndex>(index);
    for (auto &series : counters) {
        copy->derivedCounters.push_back(std::move(series));
        summarizeCounter(*copy, std::uint32_t(copy->counterCount() - 1));
    }
    return copy;
}

} // namespace pyrometer::ui::timeline
