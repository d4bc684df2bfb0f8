#include "core/analysis/criticalpath.h"

#include "core/analysis/criticalpathgraph.h"
#include "core/analysis/workclass.h"
#include "core/trace/combine.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace pyrometer::analysis {
namespace {

using trace::EventIndex;
using trace::StringId;
using trace::TrackId;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint32_t kOpenOpLookBack = 256;    // earlier events checked for ops open at the step's start
constexpr std::uint32_t kScanPastStep = 256;      // unlaunched device events past the step before a scan stops
constexpr std::uint64_t kWhatIfBudget = 1u << 24; // vertex visits of all what-ifs together

using pathgraph::Graph;
using pathgraph::Node;

struct CallGroup {
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::uint32_t event = 0; // the first call: names the node
    bool sync = false;
};

// Calls that make the CPU wait for the device (workclass.h: synchronize, blocking copies, MTIA's
// synchronizeStream too). cudaStreamWaitEvent is not one: it returns at once and only makes a
// stream wait for another, which shows as that stream's latency.
bool isSyncName(std::string_view name)
{
    return blocksHost(runtimeCallOf(name));
}

// Builds the nodes and edges of the step [windowStart, windowEnd) (the CPU part; device events
// launched in it may end later).
class GraphBuilder {
public:
    // part: of a combined trace, the rank whose step it is (its threads and devices only: other
    // ranks' correlation ids repeat its own); nothing for every track.
    GraphBuilder(const TraceIndex &index, std::int64_t windowStart, std::int64_t windowEnd, bool wholeTrace,
                 std::optional<std::uint32_t> part)
        : m_index(index), m_trace(*index.trace), m_start(windowStart), m_end(windowEnd), m_whole(wholeTrace),
          m_part(part)
    {}

    bool build(Graph &graph, const StopToken *stop)
    {
        m_threadOf.assign(m_trace.tracks.size(), kNone);
        m_syncName.assign(m_trace.strings.size(), -1);
        const auto inPart = [&](std::uint32_t t) {
            return !m_part || trace::processPart(m_trace.processes[m_trace.tracks[t].process.value]) == *m_part;
        };
        for (std::uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
            if (stop && stop->stopRequested())
                return false;
            if (!m_index.tracks[t].hasDevice && inPart(t))
                addThread(graph, TrackId(t));
        }
        for (std::uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
            if (stop && stop->stopRequested())
                return false;
            if (m_index.tracks[t].hasDevice && inPart(t))
                addDevice(graph, TrackId(t));
        }
        m_deviceCount = static_cast<std::size_t>(std::count_if(
            graph.nodes.begin(), graph.nodes.end(), [](const Node &n) { return n.kind == PathNodeKind::Device; }));
        addStreamOrder(graph);
        addEventWaits(graph);
        addSyncWaits(graph);
        addFlows(graph);
        addForks(graph);
        return true;
    }

    std::size_t deviceCount() const { return m_deviceCount; }
    std::size_t eventWaits() const { return m_eventWaits; }

private:
    std::uint32_t addNode(Graph &graph, Node node)
    {
        node.own = node.end - node.start;
        graph.nodes.push_back(node);
        return static_cast<std::uint32_t>(graph.nodes.size() - 1);
    }

    bool isSync(StringId name)
    {
        auto &known = m_syncName[name.value];
        if (known < 0)
            known = isSyncName(m_trace.string(name)) ? 1 : 0;
        return known == 1;
    }

    // One CPU thread: its calls, and between them its time under ops, split where the innermost
    // op changes; consecutive nodes are chained.
    void addThread(Graph &graph, TrackId t)
    {
        const auto &track = m_trace.track(t);
        const auto &ti = m_index.track(t);
        const auto [firstId, lastId] = m_trace.startRange(t, m_start, m_whole ? m_end + 1 : m_end);
        const auto first = firstId.value;
        const auto last = lastId.value;
        std::vector<std::uint32_t> ops;
        if (ti.hasOps) {
            // Ops open at the window's start: the ancestors of the events just before it.
            for (std::uint32_t back = 1; back <= kOpenOpLookBack && back <= first; ++back)
                for (auto j = EventIndex(first - back); j.isValid(); j = ti.opParent[j.value])
                    if (ti.kind[j.value] == EventKind::Op && track.end(j) > m_start)
                        ops.push_back(j.value);
            std::sort(ops.begin(), ops.end());
            ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
        }
        std::vector<CallGroup> calls;
        std::vector<std::pair<std::uint32_t, std::int64_t>> correlations; // call group, correlation id
        for (auto i = first; i < last; ++i) {
            const auto kind = ti.kind[i];
            if (kind == EventKind::Op) {
                ops.push_back(i);
                continue;
            }
            if (kind != EventKind::Runtime && kind != EventKind::Sync)
                continue;
            const auto start = track.start[i];
            const auto end = track.end(EventIndex(i));
            const bool sync = kind == EventKind::Sync || isSync(track.eventName[i]);
            // A call inside another (a driver call under a runtime call) is part of that node.
            if (calls.empty() || start >= calls.back().end)
                calls.push_back({start, end, i, sync});
            auto &group = calls.back();
            group.end = std::max(group.end, end);
            group.sync = group.sync || sync;
            if (const auto *args = m_trace.eventArgs(t, EventIndex(i)); args && args->correlation >= 0)
                correlations.push_back({static_cast<std::uint32_t>(calls.size() - 1), args->correlation});
        }
        // A track of cuda_sync records alone (a GPU's "Context Sync" row) is no CPU thread.
        if (ops.empty() && std::none_of(calls.begin(), calls.end(),
                                        [&](const CallGroup &g) { return ti.kind[g.event] == EventKind::Runtime; }))
            return;

        // The innermost op over each stretch of the window, by a sweep over the ops in start order.
        struct Stretch {
            std::int64_t start, end;
            std::uint32_t op;
        };
        std::vector<Stretch> cover;
        std::vector<std::uint32_t> open;
        std::int64_t cursor = m_start;
        const auto emitUntil = [&](std::int64_t until) {
            if (!open.empty() && cursor < until)
                cover.push_back({cursor, until, open.back()});
            cursor = std::max(cursor, until);
        };
        const auto closeUntil = [&](std::int64_t time) {
            while (!open.empty() && track.end(EventIndex(open.back())) <= time) {
                emitUntil(std::min(track.end(EventIndex(open.back())), m_end));
                open.pop_back();
            }
        };
        for (const auto op : ops) {
            const auto start = std::max(track.start[op], m_start);
            closeUntil(start);
            emitUntil(start);
            open.push_back(op);
        }
        closeUntil(std::numeric_limits<std::int64_t>::max());

        // The stretches less the calls, merged with the calls in time order and chained.
        std::vector<Stretch> pieces;
        std::size_t g0 = 0;
        for (const auto &c : cover) {
            while (g0 < calls.size() && calls[g0].end <= c.start)
                ++g0;
            auto from = c.start;
            for (auto g = g0; g < calls.size() && calls[g].start < c.end; ++g) {
                if (from < std::min(calls[g].start, c.end))
                    pieces.push_back({from, std::min(calls[g].start, c.end), c.op});
                from = std::max(from, calls[g].end);
            }
            if (from < c.end)
                pieces.push_back({from, c.end, c.op});
        }
        if (pieces.empty() && calls.empty())
            return;
        m_threadOf[t.value] = static_cast<std::uint32_t>(m_threads.size());
        auto &ids = m_threads.emplace_back();
        ids.reserve(pieces.size() + calls.size());
        std::vector<std::uint32_t> callNode(calls.size());
        const auto append = [&](const Node &node) {
            const auto id = addNode(graph, node);
            if (!ids.empty())
                graph.link(2 * ids.back() + 1, 2 * id);
            ids.push_back(id);
            return id;
        };
        for (std::size_t p = 0, g = 0; p < pieces.size() || g < calls.size();) {
            if (g < calls.size() && (p == pieces.size() || std::pair(calls[g].start, calls[g].end) <
                                                               std::pair(pieces[p].start, pieces[p].end))) {
                const auto &call = calls[g];
                const auto kind = call.sync ? PathNodeKind::Sync : PathNodeKind::Cpu;
                callNode[g++] =
                    append({{t, EventIndex(call.event)}, kind, track.eventName[call.event], call.start, call.end, 0});
            } else {
                const auto &piece = pieces[p++];
                append({{t, EventIndex(piece.op)},
                        PathNodeKind::Cpu,
                        track.eventName[piece.op],
                        piece.start,
                        piece.end,
                        0});
            }
        }
        for (const auto &[call, correlation] : correlations) {
            m_callOf.emplace(correlation, callNode[call]);
            m_maxCorrelation = std::max(m_maxCorrelation, correlation);
        }
    }

    // The device events launched by the step's calls (the whole trace: all of them).
    void addDevice(Graph &graph, TrackId t)
    {
        const auto &track = m_trace.track(t);
        const auto &ti = m_index.track(t);
        const auto first = m_trace.startRange(t, m_start, m_start).first.value;
        std::uint32_t unlaunched = 0;
        for (auto i = first; i < track.size(); ++i) {
            if (!isDeviceKind(ti.kind[i]))
                continue;
            const auto *args = m_trace.eventArgs(t, EventIndex(i));
            const auto correlation = args ? args->correlation : -1;
            const auto call = correlation >= 0 ? m_callOf.find(correlation) : m_callOf.end();
            if (call == m_callOf.end() && !m_whole) {
                // Correlation ids grow with launch order and a stream runs in that order: past
                // the step, a run of later ids means nothing launched in it is left.
                if (track.start[i] >= m_end && (correlation < 0 || correlation > m_maxCorrelation) &&
                    ++unlaunched >= kScanPastStep)
                    break;
                continue;
            }
            unlaunched = 0;
            const auto [device, stream] = deviceAndStream(m_trace, t, i);
            const Node node{{t, EventIndex(i)}, PathNodeKind::Device,     track.eventName[i],
                            track.start[i],     track.end(EventIndex(i)), 0};
            const auto id = addNode(graph, node);
            m_streams.push_back({(std::uint64_t(std::uint32_t(device)) << 32) | std::uint32_t(stream), id});
            if (call == m_callOf.end())
                continue;
            auto &launch = graph.nodes[call->second];
            if (launch.kind == PathNodeKind::Cpu)
                launch.kind = PathNodeKind::Launch;
            m_launched[call->second].push_back(id);
            m_streamOf[id] = m_streams.back().first;
            const auto start = track.start[i];
            if (start >= launch.end)
                graph.link(2 * call->second + 1, 2 * id);
            else if (start >= launch.start) // it began while its call was still running
                graph.link(2 * call->second, 2 * id);
        }
    }

    // Each device event follows the one that ended last, of those on its stream that ended
    // before it began. One that began while the event before it on the stream still ran
    // (programmatic dependent launch lets a kernel start before its predecessor ends) ends no
    // sooner than that one: its end follows that end, and only its time after it is its own.
    void addStreamOrder(Graph &graph)
    {
        auto &nodes = graph.nodes;
        std::sort(m_streams.begin(), m_streams.end(), [&](const auto &a, const auto &b) {
            return std::tuple(a.first, nodes[a.second].start, nodes[a.second].end, a.second) <
                   std::tuple(b.first, nodes[b.second].start, nodes[b.second].end, b.second);
        });
        using Running = std::pair<std::int64_t, std::uint32_t>; // end, node
        std::priority_queue<Running, std::vector<Running>, std::greater<>> running;
        std::uint32_t previous = kNone;
        for (std::size_t k = 0; k < m_streams.size(); ++k) {
            if (k == 0 || m_streams[k].first != m_streams[k - 1].first) {
                running = {};
                previous = kNone;
            }
            const auto id = m_streams[k].second;
            while (!running.empty() && running.top().first <= nodes[id].start) {
                previous = running.top().second;
                running.pop();
            }
            if (previous != kNone)
                graph.link(2 * previous + 1, 2 * id);
            if (k > 0 && m_streams[k].first == m_streams[k - 1].first) {
                const auto before = m_streams[k - 1].second;
                if (nodes[before].end > nodes[id].start && nodes[before].end <= nodes[id].end) {
                    graph.link(2 * before + 1, 2 * id + 1);
                    nodes[id].own = nodes[id].end - nodes[before].end;
                }
            }
            running.push({nodes[id].end, id});
        }
    }

    // Waits between streams: cudaEventRecord (hipEventRecord) on one stream, then
    // cudaStreamWaitEvent on another, makes that stream's next work wait for what the first had
    // been given before the record. The trace names neither stream (the calls carry only their
    // correlation id), so they are read from the thread's launches: the recorded stream is that
    // of the last launch before the record, the waiting one that of the first launch after the
    // wait on another stream; its first device event follows the recorded work's last one. Newer
    // torch writes the wait itself as a cuda_sync event with the record's correlation id
    // (wait_on_cuda_event_record_corr_id) on the waiting stream: that is used where present.
    void addEventWaits(Graph &graph)
    {
        const auto &nodes = graph.nodes;
        const auto lastOf = [&](std::uint32_t call) {
            std::uint32_t last = kNone;
            for (const auto d : m_launched[call])
                if (last == kNone || nodes[d].end > nodes[last].end)
                    last = d;
            return last;
        };
        const auto firstOf = [&](std::uint32_t call) {
            std::uint32_t first = kNone;
            for (const auto d : m_launched[call])
                if (first == kNone || nodes[d].start < nodes[first].start)
                    first = d;
            return first;
        };
        std::unordered_map<std::uint32_t, std::uint32_t> recorded; // record call node -> device node
        for (const auto &ids : m_threads) {
            std::uint32_t lastLaunch = kNone; // the latest launch with device work on this thread
            std::uint32_t pending = kNone;    // the recorded work a wait is still to be tied to
            for (const auto id : ids) {
                const auto name = m_trace.string(nodes[id].name);
                if (name.find("EventRecord") != std::string_view::npos) {
                    if (lastLaunch != kNone)
                        recorded[id] = lastOf(lastLaunch);
                    continue;
                }
                if (name.find("StreamWaitEvent") != std::string_view::npos) {
                    pending = kNone;
                    for (auto back = std::find(ids.begin(), ids.end(), id); back != ids.begin();) {
                        --back;
                        if (const auto r = recorded.find(*back); r != recorded.end()) {
                            pending = r->second;
                            break;
                        }
                    }
                    continue;
                }
                if (m_launched.find(id) == m_launched.end())
                    continue;
                lastLaunch = id;
                if (pending == kNone)
                    continue;
                const auto first = firstOf(id);
                if (m_streamOf[first] != m_streamOf[pending]) {
                    if (nodes[pending].end <= nodes[first].start)
                        graph.link(2 * pending + 1, 2 * first);
                    ++m_eventWaits;
                    pending = kNone;
                }
            }
        }
        // The explicit form: a cuda_sync on the waiting stream naming the record's correlation id.
        for (std::uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
            const auto &track = m_trace.tracks[t];
            const auto &ti = m_index.tracks[t];
            const auto [first, last] = m_trace.startRange(TrackId(t), m_start, m_whole ? m_end + 1 : m_end);
            for (auto i = first.value; i < last.value; ++i) {
                if (ti.kind[i] != EventKind::Sync)
                    continue;
                const auto *extra = m_trace.extra(TrackId(t), EventIndex(i));
                if (!extra || extra->waitOnCorrelation < 0)
                    continue;
                const auto call = m_callOf.find(extra->waitOnCorrelation);
                if (call == m_callOf.end())
                    continue;
                const auto r = recorded.find(call->second);
                if (r == recorded.end() || r->second == kNone)
                    continue;
                const auto [device, stream] = deviceAndStream(m_trace, TrackId(t), i);
                const auto key = (std::uint64_t(std::uint32_t(device)) << 32) | std::uint32_t(stream);
                // The waiting stream's first device event at or after the wait.
                const auto next = std::lower_bound(m_streams.begin(), m_streams.end(), std::pair(key, track.start[i]),
                                                   [&](const auto &entry, const auto &value) {
                                                       return std::pair(entry.first, nodes[entry.second].start) < value;
                                                   });
                if (next == m_streams.end() || next->first != key)
                    continue;
                if (nodes[r->second].end <= nodes[next->second].start)
                    graph.link(2 * r->second + 1, 2 * next->second);
                ++m_eventWaits;
            }
        }
    }

    // A sync returns once the last device event that ended before it did is over: its own time
    // is what follows that end (or its whole duration when the device was done before it began).
    void addSyncWaits(Graph &graph)
    {
        auto &nodes = graph.nodes;
        std::vector<std::pair<std::int64_t, std::uint32_t>> byEnd;
        for (std::uint32_t i = 0; i < nodes.size(); ++i)
            if (nodes[i].kind == PathNodeKind::Device)
                byEnd.push_back({nodes[i].end, i});
        std::sort(byEnd.begin(), byEnd.end());
        for (std::uint32_t s = 0; s < nodes.size(); ++s) {
            if (nodes[s].kind != PathNodeKind::Sync)
                continue;
            auto it = std::upper_bound(byEnd.begin(), byEnd.end(), std::pair(nodes[s].end, kNone));
            // A zero-length event at the sync's very end cannot be what it waited for.
            while (it != byEnd.begin() && nodes[std::prev(it)->second].start >= nodes[s].end)
                --it;
            if (it == byEnd.begin())
                continue;
            const auto d = std::prev(it)->second;
            if (nodes[d].end <= nodes[s].start)
                continue; // done before the sync began: it never waited
            nodes[s].own = nodes[s].end - nodes[d].end;
            graph.link(2 * d + 1, 2 * s + 1);
        }
    }

    // Flows between CPU threads (fwdbwd and the like): the node that ends at the flow's start
    // event -> the node that begins at its end event. Launch flows (ac2g) are the launch edges.
    void addFlows(Graph &graph)
    {
        const auto ac2g = m_trace.strings.find("ac2g");
        const auto &nodes = graph.nodes;
        const auto thread = [&](const trace::FlowEnd &end) -> const std::vector<std::uint32_t> * {
            if (!end.track.isValid() || end.track.value >= m_threadOf.size() || m_threadOf[end.track.value] == kNone)
                return nullptr;
            return &m_threads[m_threadOf[end.track.value]];
        };
        std::int64_t lastStart = std::numeric_limits<std::int64_t>::min();
        for (const auto &ids : m_threads)
            lastStart = std::max(lastStart, nodes[ids.back()].start);
        for (const auto &flow : m_trace.flows) {
            // The flow's own times first: they rule out the flows of other steps without a
            // look at their events (whose end is at or after the start's time, and whose start
            // is at or before the end's, bound as both ends of a fwdbwd flow are).
            if ((ac2g.isValid() && flow.category == ac2g) || flow.to.time < m_start || flow.from.time > lastStart)
                continue;
            const auto *from = thread(flow.from);
            const auto *to = thread(flow.to);
            if (!from || !to)
                continue;
            const auto &fromTrack = m_trace.track(flow.from.track);
            const auto &toTrack = m_trace.track(flow.to.track);
            const auto fromTime = flow.from.event.isValid() ? fromTrack.end(flow.from.event) : flow.from.time;
            const auto toTime = flow.to.event.isValid() ? toTrack.start[flow.to.event.value] : flow.to.time;
            if (toTime < fromTime || fromTime < m_start)
                continue;
            // The thread's nodes are disjoint and in order: ends are sorted too.
            auto p = std::upper_bound(from->begin(), from->end(), fromTime,
                                      [&](std::int64_t time, std::uint32_t n) { return time < nodes[n].end; });
            auto q = std::lower_bound(to->begin(), to->end(), toTime,
                                      [&](std::uint32_t n, std::int64_t time) { return nodes[n].start < time; });
            if (p == from->begin() || q == to->end() || *std::prev(p) == *q)
                continue;
            const auto pred = *std::prev(p);
            graph.link(2 * pred + 1, 2 * *q);
            m_flowTargets.push_back(*q);
        }
    }

    // A thread whose work in the step begins after the step did, with no flow to say what
    // started it (autograd's thread in traces without fwdbwd flows), follows the node that ended
    // last before it on the other threads: else its path would begin with a wait from the step's
    // start and hide the work that came before.
    void addForks(Graph &graph)
    {
        const auto &nodes = graph.nodes;
        std::sort(m_flowTargets.begin(), m_flowTargets.end());
        for (std::size_t t = 0; t < m_threads.size(); ++t) {
            const auto first = m_threads[t].front();
            if (nodes[first].start <= m_start || std::binary_search(m_flowTargets.begin(), m_flowTargets.end(), first))
                continue;
            std::uint32_t best = kNone;
            for (std::size_t u = 0; u < m_threads.size(); ++u) {
                const auto &other = m_threads[u];
                const auto p =
                    std::upper_bound(other.begin(), other.end(), nodes[first].start,
                                     [&](std::int64_t time, std::uint32_t n) { return time < nodes[n].end; });
                if (u != t && p != other.begin() && (best == kNone || nodes[*std::prev(p)].end > nodes[best].end))
                    best = *std::prev(p);
            }
            if (best != kNone)
                graph.link(2 * best + 1, 2 * first);
        }
    }

    const TraceIndex &m_index;
    const trace::Trace &m_trace;
    std::int64_t m_start;
    std::int64_t m_end;
    bool m_whole;
    std::optional<std::uint32_t> m_part;
    std::vector<std::int8_t> m_syncName;                            // by name id: -1 unknown, 0, 1
    std::unordered_map<std::int64_t, std::uint32_t> m_callOf;       // correlation -> call node
    std::vector<std::vector<std::uint32_t>> m_threads;              // per CPU thread: its nodes in order
    std::vector<std::uint32_t> m_threadOf;                          // track -> index in m_threads
    std::vector<std::uint32_t> m_flowTargets;                       // nodes a flow leads to
    std::vector<std::pair<std::uint64_t, std::uint32_t>> m_streams; // (device, stream), node
    std::int64_t m_maxCorrelation = -1;
    std::size_t m_deviceCount = 0;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> m_launched; // call node -> its device nodes
    std::unordered_map<std::uint32_t, std::uint64_t> m_streamOf;              // device node -> (device, stream)
    std::size_t m_eventWaits = 0;
};

} // namespace

namespace {

// The path back from vertex last, through the predecessor that ended last at each vertex, as
// path nodes in time order. Returns the graph node of each.
std::vector<std::uint32_t> tracePath(const Graph &graph, const std::vector<std::int64_t> &time, std::uint32_t last,
                                     const trace::Trace &trace, CriticalPath &result)
{
    std::vector<std::uint32_t> chain{last};
    for (auto v = last; !graph.isSource(v);) {
        auto best = graph.in[graph.inStart[v]];
        for (auto k = graph.inStart[v] + 1; k < graph.inStart[v + 1]; ++k)
            if (time[graph.in[k]] > time[best])
                best = graph.in[k];
        chain.push_back(best);
        v = best;
    }
    std::reverse(chain.begin(), chain.end());
    std::vector<std::uint32_t> pathNode;
    // Segments are back to back in time, so the wait before one is its start less the end of
    // the one before (or the step's start). What lies before the step's start (the CPU's part of
    // a step that overlaps the previous step's device work) is cut off.
    std::int64_t cursor = result.startNs;
    const auto segment = [&](std::uint32_t node, std::int64_t start, std::int64_t duration) {
        auto &nodes = result.nodes;
        if (start < result.startNs) {
            if (start + duration <= result.startNs)
                return;
            duration -= result.startNs - start;
            start = result.startNs;
        }
        const auto wait = start - cursor;
        cursor = start + duration;
        if (wait == 0 && !pathNode.empty() && pathNode.back() == node &&
            nodes.back().startNs + nodes.back().durationNs == start) {
            nodes.back().durationNs += duration;
            return;
        }
        const auto &g = graph.nodes[node];
        nodes.push_back({g.event, g.kind, std::string(trace.string(g.name)), start, duration, wait, 0.0});
        pathNode.push_back(node);
    };
    for (std::size_t k = 1; k < chain.size(); ++k) {
        const auto from = chain[k - 1];
        const auto to = chain[k];
        const auto span = time[to] - time[from];
        if (!(from & 1u) && (to & 1u)) // start -> end: the node's own time
            segment(from / 2, time[from], span);
        else if ((from & 1u) && !(to & 1u)) // end -> start: a wait (the next segment's start says how long)
            continue;
        else if (from & 1u) // device end -> sync end (or the end of a device event that overlapped it): its time after
            segment(to / 2, time[from], span);
        else if (span > 0) // call start -> device start: the call was running when it began
            segment(from / 2, time[from], span);
    }
    return pathNode;
}

// What-ifs: halve one node's own time and re-evaluate only what that moves, in topological
// order (times only fall, and the scan stops once no vertex is left to update), for the
// whatIfCount longest nodes of the path. False when stopped.
bool addWhatIfs(Graph &graph, std::vector<std::int64_t> &time, const std::vector<std::uint32_t> &pathNode,
                std::size_t whatIfCount, const StopToken *stop, CriticalPath &result)
{
    const auto n = graph.vertexCount();
    const auto length = result.lengthNs();
    const auto share = [&](std::int64_t ns) { return length > 0 ? 100.0 * double(ns) / double(length) : 0.0; };
    // A node is on the path at most twice (a synchronous copy's call, before and after it).
    std::vector<std::size_t> candidates(result.nodes.size());
    for (std::size_t i = 0; i < candidates.size(); ++i)
        candidates[i] = i;
    const auto longer = [&](std::size_t a, std::size_t b) {
        return std::pair(-result.nodes[a].durationNs, a) < std::pair(-result.nodes[b].durationNs, b);
    };
    const auto considered = std::min(candidates.size(), 2 * whatIfCount);
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(considered),
                      candidates.end(), longer);
    candidates.resize(considered);
    // The ends that finish last: the new end is the latest of these the what-if did not move (or,
    // should it move them all, of every end).
    std::vector<std::uint32_t> lastEnds;
    for (std::uint32_t v = 1; v < n; v += 2)
        lastEnds.push_back(v);
    const auto later = [&](std::uint32_t a, std::uint32_t b) { return time[a] > time[b]; };
    const auto kept = std::min<std::size_t>(lastEnds.size(), 64);
    std::partial_sort(lastEnds.begin(), lastEnds.begin() + static_cast<std::ptrdiff_t>(kept), lastEnds.end(), later);
    std::vector<char> dirty(n, 0), moved(n, 0);
    std::vector<std::uint32_t> changed, tried;
    std::uint64_t visited = 0;
    for (const auto c : candidates) {
        if (result.whatIfs.size() >= whatIfCount || result.nodes[c].durationNs <= 0 || visited > kWhatIfBudget)
            break;
        const auto end = 2 * pathNode[c] + 1;
        if (std::find(tried.begin(), tried.end(), end) != tried.end())
            continue; // a call on the path twice (before and after its copy)
        tried.push_back(end);
        if (stop && stop->stopRequested())
            return false;
        graph.latency[end] -= graph.latency[end] / 2;
        dirty[end] = 1;
        std::size_t pending = 1;
        for (std::size_t p = graph.position[end]; pending > 0 && p < n; ++p, ++visited) {
            const auto v = graph.order[p];
            if (!dirty[v])
                continue;
            dirty[v] = 0;
            --pending;
            const auto value = graph.evaluate(v, time);
            if (value == time[v])
                continue;
            time[v] = value;
            if (!moved[v]) {
                moved[v] = 1;
                changed.push_back(v);
            }
            for (auto k = graph.outStart[v]; k < graph.outStart[v + 1]; ++k)
                if (!dirty[graph.out[k]]) {
                    dirty[graph.out[k]] = 1;
                    ++pending;
                }
        }
        if (pending > 0) // only after a cycle of zero-length edges (see Graph::finish)
            std::fill(dirty.begin(), dirty.end(), 0);
        auto newEnd = std::numeric_limits<std::int64_t>::min();
        for (const auto v : changed)
            if (v & 1u)
                newEnd = std::max(newEnd, time[v]);
        const auto unmoved = std::find_if(lastEnds.begin(), lastEnds.begin() + static_cast<std::ptrdiff_t>(kept),
                                          [&](std::uint32_t v) { return !moved[v]; });
        if (unmoved != lastEnds.begin() + static_cast<std::ptrdiff_t>(kept))
            newEnd = std::max(newEnd, time[*unmoved]);
        else
            for (std::uint32_t v = 1; v < n; v += 2)
                newEnd = std::max(newEnd, time[v]);
        for (const auto v : changed) {
            time[v] = graph.baseline(v);
            moved[v] = 0;
        }
        changed.clear();
        graph.latency[end] = graph.nodes[end / 2].own;
        // A node cut at the step's start counts its part in the step: halving that saves at most
        // half of it.
        const auto savedNs = std::clamp<std::int64_t>(result.endNs - newEnd, 0, result.nodes[c].durationNs / 2);
        result.whatIfs.push_back({c, result.nodes[c].name, savedNs, share(savedNs)});
    }
    std::stable_sort(result.whatIfs.begin(), result.whatIfs.end(),
                     [](const WhatIf &a, const WhatIf &b) { return a.savedNs > b.savedNs; });
    return true;
}

// The vertex of the last end inside the span (a call of the step's CPU span may outlast it),
// else the last end.
std::uint32_t lastEnd(const std::vector<std::int64_t> &time, std::int64_t spanEnd)
{
    const auto n = std::uint32_t(time.size());
    std::uint32_t last = kNone;
    for (std::uint32_t v = 1; v < n; v += 2)
        if (time[v] <= spanEnd && (last == kNone || time[v] >= time[last]))
            last = v;
    if (last == kNone)
        for (std::uint32_t v = 1; v < n; v += 2)
            if (last == kNone || time[v] >= time[last])
                last = v;
    return last;
}

// The path of the CPU window [cpuStart, cpuEnd) (whole: the trace), cut to [spanStart, spanEnd]:
// it follows back from the last end at or before spanEnd.
CriticalPath buildPath(const TraceIndex &index, EventRef step, std::int64_t cpuStart, std::int64_t cpuEnd,
                       std::int64_t spanStart, std::int64_t spanEnd, std::size_t whatIfCount, const StopToken *stop)
{
    const auto &trace = *index.trace;
    CriticalPath result;
    const bool whole = !step.isValid();
    result.step =
        whole ? std::string("trace") : std::string(trace.string(trace.track(step.track).eventName[step.event.value]));
    result.startNs = cpuStart;
    result.endNs = cpuEnd;
    Graph graph;
    const auto part = whole ? std::nullopt
                            : std::optional(trace::processPart(trace.processes[trace.track(step.track).process.value]));
    GraphBuilder builder(index, result.startNs, result.endNs, whole, part);
    if (!builder.build(graph, stop))
        return {};
    result.graphNodes = graph.nodes.size();
    result.deviceEvents = builder.deviceCount();
    result.eventWaits = builder.eventWaits();
    if (graph.nodes.empty()) {
        result.endNs = result.startNs;
        return result;
    }
    graph.finish();
    if (stop && stop->stopRequested())
        return {};

    const auto n = graph.vertexCount();
    std::vector<std::int64_t> time(n);
    for (std::uint32_t v = 0; v < n; ++v)
        time[v] = graph.baseline(v);
#ifndef NDEBUG
    for (const auto v : graph.order)
        assert(graph.evaluate(v, time) == time[v]); // the forward pass gives back the trace
#endif
    const auto last = lastEnd(time, spanEnd);
    result.endNs = time[last];
    result.startNs = std::min(spanStart, result.endNs);
    const auto pathNode = tracePath(graph, time, last, trace, result);
    // CPU time under the step's own annotation is time in no op (Python, the data loader's
    // wait, ...): say so rather than name the step.
    for (auto &node : result.nodes)
        if (!whole && node.kind == PathNodeKind::Cpu && node.event == step)
            node.name = "outside ops (" + result.step + ")";
    const auto length = result.lengthNs();
    const auto share = [&](std::int64_t ns) { return length > 0 ? 100.0 * double(ns) / double(length) : 0.0; };
    for (auto &node : result.nodes) {
        node.sharePct = share(node.durationNs);
        (node.kind == PathNodeKind::Device ? result.deviceNs : result.cpuNs) += node.durationNs;
        result.waitNs += node.waitBeforeNs;
    }

    if (!addWhatIfs(graph, time, pathNode, whatIfCount, stop, result))
        return {};
    return result;
}

} // namespace

CriticalPath buildCriticalPath(const TraceIndex &index, const StepSpan &step, std::size_t whatIfCount,
                               const StopToken *stop)
{
    return buildPath(index, step.event, step.cpuStartNs, step.cpuEndNs, step.startNs, step.endNs, whatIfCount, stop);
}

CriticalPath buildCriticalPath(const TraceIndex &index, EventRef step, std::size_t whatIfCount, const StopToken *stop)
{
    const auto &trace = *index.trace;
    if (!step.isValid())
        return buildPath(index, step, trace.info.spanStart, trace.info.spanEnd, trace.info.spanStart,
                         std::numeric_limits<std::int64_t>::max(), whatIfCount, stop);
    const auto spans = buildStepSpans(index, stop);
    if (stop && stop->stopRequested())
        return {};
    for (const auto &span : spans.steps)
        if (span.event == step)
            return buildCriticalPath(index, span, whatIfCount, stop);
    // Not a ProfilerStep: its CPU span, to the end of the last event it led to.
    const auto &track = trace.track(step.track);
    return buildPath(index, step, track.start[step.event.value], track.end(step.event), track.start[step.event.value],
                     std::numeric_limits<std::int64_t>::max(), whatIfCount, stop);
}

} // namespace pyrometer::analysis
