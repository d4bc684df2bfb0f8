// Repeated runs of kernels per stream.
//
// A stream is a (device, stream) pair as deviceAndStream gives it; its sequence is its kernels
// (kind Kernel only: memcpy and memset are neither part of a run nor break one) that start in
// the range, in start order. Every run of minLength..maxLength consecutive kernels is counted by
// name: occurrences are non-overlapping, taken greedily from the left (which gives the most
// non-overlapping occurrences), and a run is kept when it occurs minOccurrences times or more.
// A kept run is dropped when a longer kept run on the same stream contains it and occurs as
// often: "A B C" repeated drops "A B" and "B C". The rest are ranked by occurrences x length,
// then total time, then length, then device, stream and first occurrence.
//
// How: one pass per length L over the stream. A run is named by a 64-bit hash chained over its
// names' ids (each step a bijective mix, so runs that differ in one name differ in the hash up
// to that point); runs are not compared name by name, so two different runs that collide are
// counted as one: with n runs of a length the chance of any collision is about n^2 / 2^65
// (1e-7 for 2.5 million), which is accepted. A position stays a candidate for length L + 1 only
// while the runs of length L starting at it and at the next position occur (overlapping)
// minOccurrences times: a longer run cannot occur more often than its two shorter halves, so
// the passes get cheaper as L grows on traces that do not repeat. A run that a longer kept run
// of the same count contains is also contained, with that count, in a run just one longer
// (counts only fall as runs grow), so the drop rule needs only the two runs one shorter.
//
// Rotations are one cycle: a stream that repeats "A B ... L" also repeats "B ... L A" and every
// other rotation about as often. Of the kept runs of one length on one stream, those that are
// rotations of each other (named by a hash of their least rotation) are reported once, as the
// rotation that occurs most often, of equals the one that occurs first in the stream (where the
// cycle was entered), with its own count. A run that is a shorter run repeated ("A B C A B C")
// is that run's cycle again, and is left out when the shorter one may be reported (minLength).
//
// Windows of one longer cycle (a 20-kernel CUDA graph replayed, seen through runs of at most 16)
// are not rotations of each other, and each occurs as often. Rows are therefore taken in rank
// order, each counting only its occurrences on kernels that no row before it holds: a window of
// a cycle already reported keeps too few, and the rows' times add up to at most the kernels'.
#include "core/analysis/kernelsequences.h"

#include "core/analysis/graphreplays.h"

#include <algorithm>
#include <limits>
#include <map>

namespace pyrometer::analysis {

namespace {

using trace::EventIndex;
using trace::TrackId;

constexpr std::uint32_t kDead = std::numeric_limits<std::uint32_t>::max();

std::uint64_t mix(std::uint64_t x)
{
    // splitmix64's finalizer: a bijection that spreads every input bit over the output.
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

// 64-bit run hash -> index of its entry, open addressing with linear probing. The keys are
// hashes already, so their low bits pick the slot.
class RunTable {
public:
    void clear(std::size_t expected)
    {
        std::size_t capacity = 64;
        while (capacity < expected * 2)
            capacity *= 2;
        m_slots.assign(capacity, Slot{});
        m_size = 0;
    }

    // The entry of key; `next` when key is new (the caller then appends that entry).
    std::uint32_t findOrAdd(std::uint64_t key, std::uint32_t next)
    {
        if ((m_size + 1) * 2 > m_slots.size())
            grow();
        const auto mask = m_slots.size() - 1;
        for (auto i = key & mask;; i = (i + 1) & mask) {
            auto &slot = m_slots[i];
            if (slot.entry == kDead) {
                slot = {key, next};
                ++m_size;
                return next;
            }
            if (slot.key == key)
                return slot.entry;
        }
    }

private:
    struct Slot {
        std::uint64_t key = 0;
        std::uint32_t entry = kDead;
    };

    void grow()
    {
        std::vector<Slot> slots(std::max<std::size_t>(64, m_slots.size() * 2));
        const auto mask = slots.size() - 1;
        for (const auto &slot : m_slots) {
            if (slot.entry == kDead)
                continue;
            auto i = slot.key & mask;
            while (slots[i].entry != kDead)
                i = (i + 1) & mask;
            slots[i] = slot;
        }
        m_slots = std::move(slots);
    }

    std::vector<Slot> m_slots;
    std::size_t m_size = 0;
};

// The shortest p of at least shortest that repeats the run (token[first + k] == token[first + k +
// p]) and divides its length; the length when none does.
std::size_t period(const std::vector<std::uint64_t> &token, std::size_t first, std::size_t length,
                   std::size_t shortest)
{
    for (auto p = std::max<std::size_t>(1, shortest); p < length; ++p) {
        if (length % p != 0)
            continue;
        std::size_t k = 0;
        while (k + p < length && token[first + k] == token[first + k + p])
            ++k;
        if (k + p == length)
            return p;
    }
    return length;
}

// A run's name up to rotation: the hash of its least rotation (by token, compared as numbers).
std::uint64_t cycleHash(const std::vector<std::uint64_t> &token, std::size_t first, std::size_t length)
{
    std::size_t best = 0;
    for (std::size_t r = 1; r < length; ++r) {
        for (std::size_t k = 0; k < length; ++k) {
            const auto a = token[first + (r + k) % length];
            const auto b = token[first + (best + k) % length];
            if (a != b) {
                if (a < b)
                    best = r;
                break;
            }
        }
    }
    std::uint64_t h = 0;
    for (std::size_t k = 0; k < length; ++k)
        h = mix(h ^ token[first + (best + k) % length]);
    return h;
}

struct Run {
    std::uint32_t first = 0;       // position of the first occurrence
    std::uint32_t nextFree = 0;    // where the next non-overlapping occurrence may start
    std::uint64_t count = 0;       // non-overlapping occurrences
    std::uint64_t overlapping = 0; // every occurrence
    std::int64_t totalNs = 0;
    std::int64_t gapNs = 0;
    bool dropped = false;
};

struct Stream {
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::vector<EventRef> kernels; // in start order
};

struct Candidate {
    std::uint32_t stream = 0; // index into the sorted streams
    std::uint32_t length = 0;
    std::uint32_t first = 0;
    std::uint64_t count = 0;
    std::int64_t totalNs = 0;
    std::int64_t gapNs = 0;
};

bool ranksBefore(const Candidate &a, const Candidate &b)
{
    const auto scoreA = a.count * a.length;
    const auto scoreB = b.count * b.length;
    if (scoreA != scoreB)
        return scoreA > scoreB;
    if (a.totalNs != b.totalNs)
        return a.totalNs > b.totalNs;
    if (a.length != b.length)
        return a.length > b.length;
    if (a.stream != b.stream)
        return a.stream < b.stream;
    return a.first < b.first;
}

// Keeps the best `top` candidates (all when top is 0) without holding every one at once.
class Ranking {
public:
    explicit Ranking(std::size_t top) : m_top(top) {}

    void add(const Candidate &c)
    {
        m_items.push_back(c);
        if (m_top > 0 && m_items.size() >= 2 * m_top + 1024)
            trim();
    }

    std::vector<Candidate> take()
    {
        std::sort(m_items.begin(), m_items.end(), ranksBefore);
        if (m_top > 0 && m_items.size() > m_top)
            m_items.resize(m_top);
        return std::move(m_items);
    }

private:
    void trim()
    {
        std::nth_element(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_top), m_items.end(),
                         ranksBefore);
        m_items.resize(m_top);
    }

    std::size_t m_top;
    std::vector<Candidate> m_items;
};

std::vector<Stream> collectStreams(const TraceIndex &index, const TimeRange &range)
{
    const auto &trace = *index.trace;
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> streamOf;
    std::vector<Stream> streams;
    std::vector<bool> merged; // events from more than one track: sort them
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasDevice)
            continue;
        const auto [first, last] = eventsIn(trace, TrackId(t), range);
        std::pair<std::int32_t, std::int32_t> lastKey{-2, -2};
        std::size_t lastStream = 0;
        std::vector<bool> touched(streams.size(), false);
        for (auto i = first; i < last; ++i) {
            if (ti.kind[i] != EventKind::Kernel)
                continue;
            const auto key = deviceAndStream(trace, TrackId(t), i);
            if (key != lastKey) {
                auto [it, added] = streamOf.try_emplace(key, streams.size());
                if (added) {
                    streams.push_back({key.first, key.second, {}});
                    merged.push_back(false);
                    touched.push_back(false);
                }
                lastKey = key;
                lastStream = it->second;
                if (!touched[lastStream]) {
                    touched[lastStream] = true;
                    merged[lastStream] = merged[lastStream] || !streams[lastStream].kernels.empty();
                }
            }
            streams[lastStream].kernels.push_back({TrackId(t), EventIndex(i)});
        }
    }
    for (std::size_t s = 0; s < streams.size(); ++s) {
        if (!merged[s])
            continue;
        // Tracks keep start order, longest first on ties: the same order across tracks.
        std::stable_sort(streams[s].kernels.begin(), streams[s].kernels.end(),
                         [&](const EventRef &a, const EventRef &b) {
                             const auto &ta = trace.track(a.track);
                             const auto &tb = trace.track(b.track);
                             const auto sa = ta.start[a.event.value];
                             const auto sb = tb.start[b.event.value];
                             if (sa != sb)
                                 return sa < sb;
                             return ta.duration[a.event.value] > tb.duration[b.event.value];
                         });
    }
    std::sort(streams.begin(), streams.end(), [](const Stream &a, const Stream &b) {
        return std::tie(a.device, a.stream) < std::tie(b.device, b.stream);
    });
    return streams;
}

// Counts the runs of one stream and hands the kept ones to the ranking. False when stopped.
bool countRuns(const trace::Trace &trace, const Stream &stream, std::uint32_t streamIndex,
               const SequenceOptions &options, Ranking &ranking, const StopToken *stop)
{
    const auto n = stream.kernels.size();
    const auto minLength = std::max<std::size_t>(1, options.minLength);
    const auto minCount = std::max<std::uint64_t>(1, options.minOccurrences);
    std::vector<std::uint64_t> token(n);
    std::vector<std::int64_t> durationSum(n + 1, 0); // kernels [0, k)
    std::vector<std::int64_t> gapSum(n + 1, 0);      // idle time between kernels j and j + 1, j < k
    for (std::size_t k = 0; k < n; ++k) {
        const auto &ref = stream.kernels[k];
        const auto &track = trace.track(ref.track);
        token[k] = mix(track.eventName[ref.event.value].value + 0x9e3779b97f4a7c15ULL);
        durationSum[k + 1] = durationSum[k] + track.duration[ref.event.value];
        gapSum[k + 1] = gapSum[k];
        if (k + 1 < n) {
            const auto &next = stream.kernels[k + 1];
            const auto end = track.start[ref.event.value] + track.duration[ref.event.value];
            gapSum[k + 1] += std::max<std::int64_t>(0, trace.track(next.track).start[next.event.value] - end);
        }
    }

    std::vector<std::uint64_t> hash(n, 0); // per position: its run of the current length
    // Per position, its run of the previous length while that run is alive (occurs minCount
    // times, overlapping), else kDead.
    std::vector<std::uint32_t> slotPrev(n, kDead);
    std::vector<std::uint32_t> slotCur(n, kDead);
    std::vector<Run> prev;
    std::vector<Run> cur;
    struct Placed {
        std::uint32_t position;
        std::uint64_t hash;
        std::int64_t totalNs; // the run's kernels
        std::int64_t gapNs;   // idle time between them
    };
    std::vector<std::vector<Placed>> parts; // positions by the top bits of their run's hash
    std::vector<std::uint32_t> entryOf;     // per position of a part: its run
    RunTable table;
    std::size_t prevLength = 0;

    std::map<std::uint64_t, const Run *> cycles; // a cycle's most frequent rotation
    const auto emit = [&](const std::vector<Run> &runs, std::size_t length) {
        if (length < minLength)
            return;
        cycles.clear();
        for (const auto &run : runs) {
            if (run.count < minCount || run.dropped)
                continue;
            if (period(token, run.first, length, minLength) < length)
                continue; // a shorter cycle repeated
            auto &first = cycles[length > 1 ? cycleHash(token, run.first, length) : token[run.first]];
            if (!first || std::pair(run.count, -std::int64_t(run.first)) > std::pair(first->count, -std::int64_t(first->first)))
                first = &run;
        }
        for (const auto &[cycle, run] : cycles)
            ranking.add(
                {streamIndex, static_cast<std::uint32_t>(length), run->first, run->count, run->totalNs, run->gapNs});
    };
    // One more occurrence, at position i, of the run with this hash; returns its entry.
    const auto count = [&](std::uint32_t i, std::uint64_t key, std::size_t length, auto &&totalNs, auto &&gapNs) {
        const auto e = table.findOrAdd(key, static_cast<std::uint32_t>(cur.size()));
        if (e == cur.size())
            cur.push_back({i, 0, 0, 0, 0, 0, false});
        auto &run = cur[e];
        ++run.overlapping;
        if (i >= run.nextFree) {
            ++run.count;
            run.nextFree = static_cast<std::uint32_t>(i + length);
            run.totalNs += totalNs();
            run.gapNs += gapNs();
        }
        return e;
    };

    for (std::size_t length = 1; length <= options.maxLength && length <= n; ++length) {
        if (stop && stop->stopRequested())
            return false;
        const auto positions = n - length + 1;
        // With many distinct runs one table would not stay in the cache: the positions are then
        // split by hash into parts of some 4096 runs, each holding every occurrence of its runs,
        // and counted part by part.
        const auto expected = std::max<std::size_t>(64, prev.size() * 2);
        std::size_t bits = 0;
        while (bits < 12 && (expected >> bits) > 4096)
            ++bits;
        parts.resize(std::size_t(1) << bits);
        for (auto &part : parts)
            part.clear();
        cur.clear();
        table.clear(expected >> bits);
        std::fill(slotCur.begin(), slotCur.end(), kDead);
        for (std::size_t i = 0; i < positions; ++i) {
            if (length > 1 && (slotPrev[i] == kDead || slotPrev[i + 1] == kDead))
                continue;
            hash[i] = mix(hash[i] ^ token[i + length - 1]);
            const auto totalNs = [&] { return durationSum[i + length] - durationSum[i]; };
            const auto gapNs = [&] { return gapSum[i + length - 1] - gapSum[i]; };
            if (bits == 0)
                slotCur[i] = count(static_cast<std::uint32_t>(i), hash[i], length, totalNs, gapNs);
            else
                parts[hash[i] >> (64 - bits)].push_back({static_cast<std::uint32_t>(i), hash[i], totalNs(), gapNs()});
        }
        // Runs that occur too rarely end their positions.
        if (bits == 0) {
            for (std::size_t i = 0; i < positions; ++i) {
                if (slotCur[i] != kDead && cur[slotCur[i]].overlapping < minCount)
                    slotCur[i] = kDead;
            }
        }
        for (const auto &part : parts) {
            if (part.empty())
                continue;
            table.clear(expected >> bits);
            entryOf.resize(part.size());
            for (std::size_t k = 0; k < part.size(); ++k) {
                const auto &placed = part[k];
                entryOf[k] = count(
                    placed.position, placed.hash, length, [&] { return placed.totalNs; }, [&] { return placed.gapNs; });
            }
            for (std::size_t k = 0; k < part.size(); ++k)
                slotCur[part[k].position] = cur[entryOf[k]].overlapping >= minCount ? entryOf[k] : kDead;
        }
        if (length > 1) {
            for (const auto &run : cur) {
                if (run.count < minCount)
                    continue;
                for (const auto sub : {slotPrev[run.first], slotPrev[run.first + 1]}) {
                    if (prev[sub].count == run.count)
                        prev[sub].dropped = true;
                }
            }
        }
        emit(prev, prevLength);
        std::swap(prev, cur);
        std::swap(slotPrev, slotCur);
        prevLength = length;
        if (prev.empty())
            break;
    }
    emit(prev, prevLength);
    return true;
}

} // namespace

std::vector<KernelSequence> findKernelSequences(const TraceIndex &index, const SequenceOptions &options,
                                                const StopToken *stop)
{
    if (options.maxLength == 0 || options.maxLength < options.minLength)
        return {};
    const auto &trace = *index.trace;
    const auto streams = collectStreams(index, options.range);
    // More candidates than rows: those whose kernels a better row already holds give way.
    Ranking ranking(options.top > 0 ? options.top * 8 + 64 : 0);
    for (std::uint32_t s = 0; s < streams.size(); ++s) {
        if (!countRuns(trace, streams[s], s, options, ranking, stop))
            return {};
    }
    const auto calls = graphLaunchCalls(index, stop);
    std::vector<std::vector<char>> claimed(streams.size());
    const auto nameOf = [&](const EventRef &ref) { return trace.track(ref.track).eventName[ref.event.value]; };
    std::vector<KernelSequence> result;
    for (auto c : ranking.take()) {
        if (options.top > 0 && result.size() >= options.top)
            break;
        if (stop && stop->stopRequested())
            return {};
        const auto &stream = streams[c.stream];
        // Its occurrences on kernels no better row holds, non-overlapping, from the left: a
        // rotation or window of a longer cycle already reported finds few, and the rows' times
        // add up to at most the kernels' time.
        auto &taken = claimed[c.stream];
        taken.resize(stream.kernels.size(), 0);
        std::vector<std::uint32_t> found;
        for (std::size_t i = 0; i + c.length <= stream.kernels.size();) {
            std::uint32_t k = 0;
            while (k < c.length && !taken[i + k] &&
                   nameOf(stream.kernels[i + k]) == nameOf(stream.kernels[c.first + k]))
                ++k;
            if (k == c.length) {
                found.push_back(static_cast<std::uint32_t>(i));
                i += c.length;
            } else {
                ++i;
            }
        }
        if (found.size() < std::max<std::uint64_t>(1, options.minOccurrences))
            continue;
        c.count = found.size();
        c.totalNs = c.gapNs = 0;
        std::uint64_t replayed = 0;
        for (const auto i : found) {
            for (std::uint32_t k = 0; k < c.length; ++k) {
                const auto &ref = stream.kernels[i + k];
                const auto &track = trace.track(ref.track);
                taken[i + k] = 1;
                c.totalNs += track.duration[ref.event.value];
                if (k + 1 < c.length) {
                    const auto &next = stream.kernels[i + k + 1];
                    c.gapNs += std::max<std::int64_t>(0, trace.track(next.track).start[next.event.value] -
                                                             track.end(ref.event));
                }
                replayed += isGraphEvent(trace, calls, ref.track, ref.event.value) ? 1 : 0;
            }
        }
        KernelSequence sequence;
        sequence.device = stream.device;
        sequence.stream = stream.stream;
        sequence.occurrences = c.count;
        sequence.totalNs = c.totalNs;
        sequence.gapNs = c.gapNs;
        sequence.replayedPct = 100.0 * double(replayed) / double(c.count * c.length);
        for (std::uint32_t k = 0; k < c.length; ++k) {
            const auto &ref = stream.kernels[c.first + k];
            sequence.kernels.emplace_back(trace.string(trace.track(ref.track).eventName[ref.event.value]));
            const auto &launch = index.track(ref.track).launchOp;
            const auto op = ref.event.value < launch.size() ? launch[ref.event.value] : EventRef{};
            sequence.ops.emplace_back(op.isValid() ? trace.string(trace.track(op.track).eventName[op.event.value])
                                                   : std::string_view());
        }
        result.push_back(std::move(sequence));
    }
    return result;
}

} // namespace pyrometer::analysis
