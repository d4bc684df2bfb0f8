#include "core/analysis/roofline.h"

#include "core/analysis/kernelnames.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace pyrometer::analysis {

using trace::EventIndex;
using trace::StringId;
using trace::TrackId;

namespace {

Precision precisionOf(std::string_view dtype)
{
    if (dtype == "double")
        return Precision::FP64;
    if (dtype == "c10::BFloat16")
        return Precision::BF16;
    if (dtype == "c10::Half")
        return Precision::FP16;
    if (dtype.starts_with("c10::Float8"))
        return Precision::FP8;
    if (dtype == "signed char" || dtype == "unsigned char" || dtype == "c10::qint8" || dtype == "c10::quint8")
        return Precision::INT8;
    return Precision::FP32;
}

// "aten::conv2d", "aten::cudnn_convolution_backward_input", a model's "Conv2d" layer.
bool isConvolution(std::string_view name)
{
    return name.find("conv") != std::string_view::npos || name.find("Conv") != std::string_view::npos;
}

// The work of each distinct call, by its name and argument texts (most calls repeat).
class WorkCache {
public:
    explicit WorkCache(const trace::Trace &trace) : m_trace(trace) {}

    const OpWork &work(const trace::Track &track, std::uint32_t e)
    {
        const auto argsIndex = track.args[e];
        const trace::EventArgs none;
        const auto &args = argsIndex == trace::Track::kNoArgs ? none : m_trace.args[argsIndex];
        const Key key{track.eventName[e].value, args.inputDims.value, args.inputTypes.value, args.concreteInputs.value};
        auto [it, added] = m_cache.try_emplace(key);
        if (added) {
            const auto text = [&](StringId id) { return id.isValid() ? m_trace.string(id) : std::string_view(); };
            it->second = args.inputDims.isValid() && args.inputTypes.isValid()
                ? opWork(text(track.eventName[e]), text(args.inputDims), text(args.inputTypes), text(args.concreteInputs))
                : opWork(text(track.eventName[e]), "[]", "[]", "");
            if (!args.inputDims.isValid())
                it->second.flops = it->second.bytes = OpWork::kUnknown;
        }
        return it->second;
    }

private:
    using Key = std::array<std::uint32_t, 4>;
    struct KeyHash {
        std::size_t operator()(const Key &k) const
        {
            std::size_t h = 0;
            for (const auto v : k)
                h = h * 0x9E3779B97F4A7C15ull + v;
            return h;
        }
    };
    const trace::Trace &m_trace;
    std::unordered_map<Key, OpWork, KeyHash> m_cache;
};

// One row being summed.
struct Sum {
    RooflineRow row;
    std::int64_t longestNs = -1;
    bool bytesKnown = true;
};

bool isAten(std::string_view name)
{
    return name.starts_with("aten::");
}

} // namespace

std::string_view boundName(Bound bound)
{
    switch (bound) {
    case Bound::Memory:
        return "memory";
    case Bound::Compute:
        return "compute";
    case Bound::Unknown:
        break;
    }
    return "unknown";
}

Roof roofFor(const DeviceRoof &device, std::string_view dtype, WorkUnit unit, bool convolution)
{
    Roof roof;
    roof.bandwidth = device.bandwidth;
    if (unit == WorkUnit::Vector) {
        roof.precision = Precision::FP32;
        roof.peakFlops = device.vectorFlops;
        return roof;
    }
    roof.precision = precisionOf(dtype);
    if (roof.precision == Precision::FP32 && convolution && device.nvidia && device.matrix(Precision::TF32) > 0)
        roof.precision = Precision::TF32;
    roof.peakFlops = std::max(device.matrix(roof.precision), device.vectorFlops);
    return roof;
}

void placeUnderRoof(RooflineRow &row, const std::optional<DeviceRoof> &device)
{
    if (!row.known() || row.timeNs <= 0)
        return;
    const double seconds = double(row.timeNs) * 1e-9;
    row.achievedFlops = row.flops / seconds;
    if (row.bytes > 0) {
        row.intensity = row.flops / row.bytes;
        row.achievedBandwidth = row.bytes / seconds;
    }
    if (!device)
        return;
    row.roof = roofFor(*device, row.dtype, row.unit, isConvolution(row.name) || isConvolution(row.shape) || isConvolution(row.launcher));
    double attainable = row.intensity >= 0 ? row.roof->at(row.intensity) : row.roof->peakFlops;
    if (row.intensity >= 0)
        row.bound = row.intensity < row.roof->ridge() ? Bound::Memory : Bound::Compute;
    // Faster than main memory allows: its data stayed in the cache, whose roof it is measured by.
    if (row.bound == Bound::Memory && row.achievedFlops > attainable && device->cacheBandwidth > device->bandwidth) {
        attainable = std::min(row.roof->peakFlops, row.intensity * device->cacheBandwidth);
        row.cacheRoof = true;
    }
    row.percentOfRoof = attainable > 0 ? 100 * row.achievedFlops / attainable : OpWork::kUnknown;
}

namespace {

class RooflineBuilder {
public:
    RooflineBuilder(const TraceIndex &index, const RooflineOptions &options, const StopToken *stop)
        : m_index(index), m_trace(*index.trace), m_options(options), m_stop(stop), m_cache(*index.trace)
    {
    }

    Roofline build()
    {
        m_result.gpu = m_index.hasDevice;
        if (!m_trace.info.devices.empty())
            m_result.traceDevice = m_trace.info.devices.front().name;
        m_result.device = m_options.device ? m_options.device : findDevice(m_result.traceDevice);
        if (!m_result.device)
            m_result.device = m_options.fallbackDevice;
        // Per call figures (time, kernels launched): for chains and kernels only, as they cost 8
        // bytes an event.
        m_perCall = m_options.byKernel || (!m_options.everyOp && m_result.device);
        if (!markCounted())
            return {};
        if (m_options.byKernel) {
            if (m_result.gpu)
                countKernels();
        } else {
            countOps();
            if (m_result.gpu)
                countDeviceTime();
            if (!m_options.everyOp && m_result.device)
                findChains();
        }
        finish();
        return std::move(m_result);
    }

private:
    enum Mark : std::uint8_t { Plain, Counted, Inside };
    // name, shape, dtype, known, device, stream
    using Key = std::tuple<std::string, std::string, std::string, bool, std::int32_t, std::int32_t>;

    std::string_view nameOf(EventRef op) const
    {
        return m_trace.string(m_trace.track(op.track).eventName[op.event.value]);
    }

    Sum &sumFor(Key key)
    {
        auto &sum = m_sums[key];
        if (sum.row.name.empty()) {
            sum.row.name = std::get<0>(key);
            sum.row.shape = std::get<1>(key);
            sum.row.dtype = std::get<2>(key);
            sum.row.device = std::get<4>(key);
            sum.row.stream = std::get<5>(key);
        }
        return sum;
    }

    Sum &opSum(EventRef op, bool known)
    {
        std::string shape;
        if (m_options.byShape) {
            const auto *args = m_trace.eventArgs(op.track, op.event);
            if (args && args->inputDims.isValid())
                shape = std::string(m_trace.string(args->inputDims));
        }
        return sumFor({std::string(nameOf(op)), shape, known ? workOf(op).dtype : std::string(), known, -1, -1});
    }

    // The work of a counted op: that of the one product inside it when it holds one (the call
    // that ran: under autocast the bf16 aten::addmm inside an fp32 aten::linear).
    const OpWork &workOf(EventRef op)
    {
        const auto &delegates = m_delegates[op.track.value];
        const auto found = delegates.find(op.event.value);
        const auto event = found != delegates.end() && !found->second.several ? found->second.event : op.event.value;
        return m_cache.work(m_trace.track(op.track), event);
    }

    // Whether `inner` lies in `outer` on one track's op tree.
    bool inside(const TrackIndex &ti, std::uint32_t inner, std::uint32_t outer) const
    {
        for (auto e = ti.opParent[inner]; e.isValid(); e = ti.opParent[e.value])
            if (e.value == outer)
                return true;
        return false;
    }

    // A product of known work inside counted products: each of them runs it (the innermost one
    // found, unless products lie side by side in it, when the op's own work stands).
    void noteProduct(std::uint32_t t, std::uint32_t i)
    {
        const auto &ti = m_index.tracks[t];
        const auto &track = m_trace.tracks[t];
        for (auto p = ti.opParent[i]; p.isValid(); p = ti.opParent[p.value]) {
            if (m_marks[t][p.value] != Counted || m_cache.work(track, p.value).unit != WorkUnit::Matrix)
                continue;
            auto [it, added] = m_delegates[t].try_emplace(p.value, Delegate{i, false});
            if (added || it->second.several)
                continue;
            if (inside(ti, i, it->second.event))
                it->second.event = i;
            else if (!inside(ti, it->second.event, i))
                it->second.several = true;
        }
    }

    static void addWork(Sum &sum, const OpWork &work)
    {
        auto &row = sum.row;
        row.flops = std::max(row.flops, 0.0) + work.flops;
        sum.bytesKnown = sum.bytesKnown && work.knownBytes();
        row.bytes = std::max(row.bytes, 0.0) + std::max(work.bytes, 0.0);
        row.dtype = work.dtype;
        row.unit = work.unit;
    }

    static void addTime(Sum &sum, EventRef event, std::int64_t ns)
    {
        sum.row.timeNs += ns;
        if (ns > sum.longestNs) {
            sum.longestNs = ns;
            sum.row.longest = event;
        }
    }

    bool inScope(EventRef op) const
    {
        const auto &track = m_trace.track(op.track);
        return m_options.range.contains(track.start[op.event.value]) && m_options.processes.contains(track.process.value);
    }

    // Per track: which ops are counted, and for the others the counted op they lie in.
    bool markCounted()
    {
        m_marks.resize(m_trace.tracks.size());
        m_holdsCounted.resize(m_trace.tracks.size());
        m_callNs.resize(m_trace.tracks.size());
        m_delegates.resize(m_trace.tracks.size());
        std::uint32_t sinceCheck = 0;
        for (std::uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
            const auto &ti = m_index.tracks[t];
            if (!ti.hasOps || !m_options.processes.contains(m_trace.tracks[t].process.value))
                continue;
            const auto &track = m_trace.tracks[t];
            auto &mark = m_marks[t];
            mark.assign(track.size(), Plain);
            m_holdsCounted[t].assign(track.size(), false);
            if (m_perCall)
                m_callNs[t].assign(track.size(), 0);
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                if (ti.kind[i] != EventKind::Op)
                    continue;
                if (m_stop && (sinceCheck++ & 0xFFFFu) == 0 && m_stop->stopRequested())
                    return false;
                const auto parent = ti.opParent[i];
                const auto &work = m_cache.work(track, i);
                if (work.knownFlops() && work.unit == WorkUnit::Matrix)
                    noteProduct(t, i);
                if (!m_options.everyOp && parent.isValid() && mark[parent.value] != Plain) {
                    mark[i] = Inside;
                    continue;
                }
                if (!work.knownFlops())
                    continue;
                mark[i] = Counted;
                for (auto p = parent; p.isValid(); p = ti.opParent[p.value])
                    m_holdsCounted[t][p.value] = true;
            }
        }
        return true;
    }

    // The counted op an event of the op tree lies in, or the outermost aten op of its chain. In a
    // counted op whose work is a product's inside it, what lies outside the product (autocast's
    // casts) is its own work, of the outermost aten op below the counted one.
    std::pair<EventRef, bool> owner(EventRef op) const
    {
        const auto &ti = m_index.track(op.track);
        const auto &mark = m_marks[op.track.value];
        const auto &delegates = m_delegates[op.track.value];
        EventRef outermostAten;
        for (auto e = op.event; e.isValid(); e = ti.opParent[e.value]) {
            if (mark[e.value] == Counted) {
                const auto found = delegates.find(e.value);
                if (found == delegates.end() || found->second.several)
                    return {{op.track, e}, true};
                const auto product = found->second.event;
                if (op.event.value == product || inside(ti, op.event.value, product))
                    return {{op.track, e}, true};
                return {outermostAten.isValid() ? outermostAten : op, false};
            }
            if (isAten(nameOf({op.track, e})))
                outermostAten = {op.track, e};
        }
        return {outermostAten.isValid() ? outermostAten : op, false};
    }

    // Time put on an op's row. Calls of unknown work are counted the first time time is put on
    // them (a GPU op launches many kernels); calls of known work are counted with their work.
    void count(EventRef op, bool known, std::int64_t ns)
    {
        auto &sum = opSum(op, known);
        if (!known && m_unknownCalls.insert(op).second)
            ++sum.row.calls;
        addTime(sum, op, ns);
        if (m_perCall)
            perCall(op) += ns;
        m_result.totalNs += ns;
        if (known)
            m_result.knownNs += ns;
    }

    template <typename Visit>
    void forEachDeviceEvent(Visit &&visit) const
    {
        for (std::uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
            const auto &ti = m_index.tracks[t];
            if (!ti.hasDevice)
                continue;
            for (std::uint32_t i = 0; i < m_trace.tracks[t].size(); ++i) {
                if (isDeviceKind(ti.kind[i]) && ti.launchOp[i].isValid() && !m_marks[ti.launchOp[i].track.value].empty())
                    visit(EventRef{TrackId(t), EventIndex(i)}, ti.launchOp[i]);
            }
        }
    }

    // Each op in scope not inside a counted one, per track in start order; afterTrack() ends each
    // track.
    template <typename Visit, typename AfterTrack>
    void forEachOuterOp(Visit &&visit, AfterTrack &&afterTrack)
    {
        for (std::uint32_t t = 0; t < m_trace.tracks.size(); ++t) {
            if (m_marks[t].empty())
                continue;
            const auto &track = m_trace.tracks[t];
            const auto &ti = m_index.tracks[t];
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                const EventRef op{TrackId(t), EventIndex(i)};
                if (m_marks[t][i] != Inside && ti.kind[i] == EventKind::Op && inScope(op))
                    visit(op, m_marks[t][i] == Counted);
            }
            afterTrack();
        }
    }

    // Calls and work of the counted ops, and the CPU's times.
    void countOps()
    {
        forEachOuterOp(
            [&](EventRef op, bool counted) {
                const auto &track = m_trace.track(op.track);
                const auto i = op.event.value;
                if (!counted) {
                    // Unknown work: on a CPU trace, outermost aten ops with nothing counted inside.
                    const auto parent = m_index.track(op.track).opParent[i];
                    const bool outermost = !parent.isValid() || !isAten(m_trace.string(track.eventName[parent.value]));
                    if (!m_options.everyOp && !m_result.gpu && outermost && !m_holdsCounted[op.track.value][i]
                        && isAten(nameOf(op)))
                        count(op, false, track.duration[i]);
                    return;
                }
                auto &sum = opSum(op, true);
                ++sum.row.calls;
                addWork(sum, workOf(op));
                if (!m_result.gpu)
                    count(op, true, track.duration[i]);
            },
            [] {});
    }

    // On a GPU trace, each device event's time goes to the op that launched it (everyOp: to each
    // counted op around the launch).
    void countDeviceTime()
    {
        forEachDeviceEvent([&](EventRef event, EventRef launch) {
            const auto ns = m_trace.track(event.track).duration[event.event.value];
            if (m_options.everyOp) {
                const auto &ti = m_index.track(launch.track);
                for (auto e = launch.event; e.isValid(); e = ti.opParent[e.value]) {
                    const EventRef op{launch.track, e};
                    if (m_marks[launch.track.value][e.value] == Counted && inScope(op))
                        count(op, true, ns);
                }
                return;
            }
            const auto [op, known] = owner(launch);
            if (inScope(op))
                count(op, known, ns);
        });
    }

    // One row per kernel and stream, with the work of a call that launched it alone.
    void countKernels()
    {
        // Kernels each call launched, and their time.
        m_callKernelNs.resize(m_trace.tracks.size());
        forEachDeviceEvent([&](EventRef event, EventRef launch) {
            const auto [op, known] = owner(launch);
            if (!known)
                return;
            ++perCall(op);
            auto &ns = m_callKernelNs[op.track.value];
            if (ns.empty())
                ns.assign(m_trace.track(op.track).size(), 0);
            ns[op.event.value] += m_trace.track(event.track).duration[event.event.value];
        });
        std::map<std::pair<Key, std::string>, std::int64_t> launcherNs;
        std::map<std::pair<Key, std::string>, EventRef> launcherOp; // a call of each, for its provenance
        forEachDeviceEvent([&](EventRef event, EventRef launch) {
            const auto [op, known] = owner(launch);
            if (!inScope(op))
                return;
            const auto &track = m_trace.track(event.track);
            const auto ns = track.duration[event.event.value];
            // The call's only kernel, or the one that took nearly all of its time.
            const bool several = known && perCall(op) > 1;
            const bool alone =
                known &&
                (!several || double(ns) >= kLauncherShare * double(m_callKernelNs[op.track.value][op.event.value]));
            const auto [device, stream] = deviceAndStream(m_trace, event.track, event.event.value);
            const Key key{std::string(m_trace.string(track.eventName[event.event.value])),
                          std::string(),
                          alone ? workOf(op).dtype : std::string(),
                          alone,
                          device,
                          stream};
            auto &sum = sumFor(key);
            ++sum.row.calls;
            if (alone) {
                addWork(sum, workOf(op));
                sum.row.workOfLauncher = sum.row.workOfLauncher || several;
            }
            addTime(sum, event, ns);
            launcherNs[{key, std::string(nameOf(op))}] += ns;
            launcherOp.try_emplace({key, std::string(nameOf(op))}, op);
            m_result.totalNs += ns;
            if (alone)
                m_result.knownNs += ns;
        });
        std::map<Key, std::int64_t> most;
        for (const auto &[key, ns] : launcherNs) {
            auto &best = most[key.first];
            if (ns > best) {
                best = ns;
                auto &row = m_sums[key.first].row;
                row.launcher = key.second;
                row.source.clear();
                const auto op = launcherOp[key];
                if (const auto *extra = op.isValid() ? m_trace.extra(op.track, op.event) : nullptr;
                    extra && extra->kernelHash.isValid())
                    row.source = std::string(m_trace.string(extra->kernelBackend)) + " " +
                                 std::string(m_trace.string(extra->kernelHash)) + " " +
                                 std::string(m_trace.string(extra->kernelFile));
            }
        }
    }

    // Runs of memory-bound calls on each thread, summed by their ops.
    void findChains()
    {
        std::map<std::vector<std::string>, RooflineChain> chains;
        std::vector<EventRef> run;
        const auto flush = [&] {
            if (run.size() >= 2) {
                std::vector<std::string> names;
                std::int64_t ns = 0;
                double bytes = 0;
                for (const auto op : run) {
                    names.emplace_back(nameOf(op));
                    ns += perCall(op);
                    bytes += workOf(op).bytes;
                }
                auto &chain = chains[names];
                chain.ops = std::move(names);
                ++chain.occurrences;
                chain.timeNs += ns;
                chain.bytes += bytes;
                if (ns > chain.longestNs) {
                    chain.longestNs = ns;
                    chain.first = run.front();
                }
            }
            run.clear();
        };
        forEachOuterOp(
            [&](EventRef op, bool counted) {
                if (perCall(op) <= 0)
                    return; // a container of counted ops, or an op that ran nothing on the device
                if (!counted) {
                    if (m_result.gpu || !movesNoData(nameOf(op)))
                        flush();
                    return;
                }
                const auto &work = workOf(op);
                const auto roof = roofFor(*m_result.device, work.dtype, work.unit, isConvolution(nameOf(op)));
                // Matrix ops end a chain even when memory-bound: fusion compilers fuse vector ops
                // (into each other, or as a product's prologue or epilogue), not products together.
                const bool memoryBound = work.bytes > 0 && work.flops / work.bytes < roof.ridge();
                if (memoryBound && work.unit == WorkUnit::Vector)
                    run.push_back(op);
                else
                    flush();
            },
            flush);
        for (auto &[ops, chain] : chains)
            m_result.chains.push_back(std::move(chain));
        std::stable_sort(m_result.chains.begin(), m_result.chains.end(),
                         [](const auto &a, const auto &b) { return a.timeNs > b.timeNs; });
    }

    void finish()
    {
        for (auto &[key, sum] : m_sums) {
            auto &row = sum.row;
            if (row.timeNs == 0) // ran nothing on the device (a CPU tensor's op in a GPU trace)
                continue;
            if (!sum.bytesKnown)
                row.bytes = OpWork::kUnknown;
            placeUnderRoof(row, m_result.device);
            m_result.rows.push_back(std::move(row));
        }
        std::stable_sort(m_result.rows.begin(), m_result.rows.end(), [](const RooflineRow &a, const RooflineRow &b) {
            if (a.known() != b.known())
                return a.known();
            return a.timeNs > b.timeNs;
        });
        if (m_options.top > 0 && m_result.rows.size() > m_options.top)
            m_result.rows.resize(m_options.top);
    }

    const TraceIndex &m_index;
    const trace::Trace &m_trace;
    const RooflineOptions &m_options;
    const StopToken *m_stop;
    WorkCache m_cache;
    Roofline m_result;
    std::map<Key, Sum> m_sums;
    std::vector<std::vector<std::uint8_t>> m_marks;
    std::vector<std::vector<bool>> m_holdsCounted;
    std::set<EventRef> m_unknownCalls;
    bool m_perCall = false;
    std::vector<std::vector<std::int64_t>> m_callNs; // per track and event: time put on each call
    std::vector<std::vector<std::int64_t>> m_callKernelNs; // byKernel: per track and event, its kernels' time
    struct Delegate {
        std::uint32_t event = 0; // the innermost product inside a counted product
        bool several = false;    // products side by side: none stands for the op
    };
    std::vector<std::unordered_map<std::uint32_t, Delegate>> m_delegates; // per track, by counted op
    std::int64_t &perCall(EventRef op) { return m_callNs[op.track.value][op.event.value]; }
};

} // namespace

Roofline buildRoofline(const TraceIndex &index, const RooflineOptions &options, const StopToken *stop)
{
    return RooflineBuilder(index, options, stop).build();
}

std::string chainName(const RooflineChain &chain)
{
    constexpr std::size_t kShown = 6; // a longer chain shows its first and last three
    std::string name;
    for (std::size_t i = 0; i < chain.ops.size(); ++i) {
        if (chain.ops.size() > kShown && i == kShown / 2) {
            name += " → … (" + std::to_string(chain.ops.size() - kShown) + " more)";
            i = chain.ops.size() - kShown / 2 - 1;
            continue;
        }
        name += (i ? " → " : "") + chain.ops[i];
    }
    return name;
}

std::vector<RooflineFinding> rooflineFindings(const Roofline &roofline)
{
    constexpr double kMinShare = 0.05;      // of the total time: smaller ops are not worth a finding
    constexpr double kFarBelowRoof = 50;    // % of the roof a compute-bound op should reach
    constexpr std::size_t kMostFindings = 3; // of each kind
    if (roofline.totalNs <= 0)
        return {};
    const auto percent = [](double value) {
        if (value >= 9.95)
            return std::to_string(int(value + 0.5)) + "%";
        const int tenths = int(value * 10 + 0.5);
        return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
    };
    std::vector<RooflineFinding> chains;
    std::set<std::string> chained; // ops a chain finding names already
    for (const auto &chain : roofline.chains) {
        const double share = double(chain.timeNs) / double(roofline.totalNs);
        if (share < kMinShare || chains.size() == kMostFindings)
            continue;
        chained.insert(chain.ops.begin(), chain.ops.end());
        chains.push_back({RooflineFinding::Kind::FuseChain, chainName(chain),
                          chainName(chain) + ": " + std::to_string(chain.ops.size())
                              + " memory-bound ops one after the other, " + std::to_string(chain.occurrences)
                              + (chain.occurrences == 1 ? " time (" : " times (") + percent(100 * share)
                              + " of the time). Fused into one kernel (torch.compile fuses elementwise and normalization "
                                "chains), their intermediates stay in registers instead of each making a trip through "
                                "memory.",
                          share});
    }
    std::vector<RooflineFinding> memory;
    std::vector<RooflineFinding> compute;
    for (const auto &row : roofline.rows) {
        const double share = double(row.timeNs) / double(roofline.totalNs);
        if (!row.known() || !row.roof || share < kMinShare)
            continue;
        const std::string where = row.launcher.empty() ? row.name + (row.shape.empty() ? "" : " " + row.shape)
                                                       : "The kernel " + shortKernelName(row.name, 80) +
                                                             " (launched by " + row.launcher + ")";
        if (row.bound == Bound::Memory && row.unit == WorkUnit::Matrix) {
            // A product below the ridge: its operands are too small for the matrix units to reuse.
            memory.push_back({RooflineFinding::Kind::FuseMemoryBound, row.name,
                              where + " is a matrix op yet memory-bound (" + percent(100 * share) + " of the time, "
                                  + percent(row.percentOfRoof) + " of the roof at its intensity): its operands are too "
                                    "small to reuse. Larger batches or sequences raise its intensity"
                                  + ((row.name + row.launcher).find("attention") == std::string::npos
                                         ? "; fusing the elementwise ops around it into its epilogue (torch.compile) "
                                           "saves their trips through memory."
                                         : "."),
                              share});
        } else if (row.bound == Bound::Memory && !chained.contains(row.name)) {
            // Far below the bandwidth too, its kernels are too small to fill the device: launch
            // and latency bound. Fusing helps both ways; more work per call helps the latter.
            const bool small = row.percentOfRoof < kFarBelowRoof;
            memory.push_back({RooflineFinding::Kind::FuseMemoryBound, row.name,
                              where + " is memory-bound (" + percent(100 * share) + " of the time, at " + percent(row.percentOfRoof)
                                  + " of the roof at its intensity): fuse it with the ops around it (torch.compile) so its "
                                    "data makes fewer trips through memory, rather than tuning it alone."
                                  + (small ? " So far below the bandwidth its calls are too small to fill the device: larger "
                                             "batches or CUDA graphs cut what each launch costs."
                                           : ""),
                              share});
        } else if (row.bound == Bound::Compute && row.percentOfRoof < kFarBelowRoof) {
            // Suggest only what the op does not already do: a faster dtype to FP32/FP64 ops, and
            // channels_last to convolutions.
            const auto precision = row.roof->precision;
            std::vector<std::string> tries;
            if (precision == Precision::FP32 || precision == Precision::FP64)
                tries.push_back("a faster dtype (BF16, TF32)");
            if (isConvolution(row.name + row.launcher))
                tries.push_back("channels_last layout");
            tries.push_back("shapes that are multiples of 8");
            std::string suggestion;
            for (std::size_t k = 0; k < tries.size(); ++k)
                suggestion += (k == 0 ? "" : k + 1 == tries.size() ? ", or " : ", ") + tries[k];
            compute.push_back({RooflineFinding::Kind::BelowComputeRoof, row.name,
                               where + " is compute-bound but reaches " + percent(row.percentOfRoof) + " of the " +
                                   std::string(precisionName(precision)) + " peak (" + percent(100 * share) +
                                   " of the time): try " + suggestion + " so the matrix units tile it fully.",
                               share});
        }
    }
    std::vector<RooflineFinding> findings = std::move(chains);
    for (auto *list : {&memory, &compute}) {
        std::stable_sort(list->begin(), list->end(), [](const auto &a, const auto &b) { return a.share > b.share; });
        list->resize(std::min(list->size(), kMostFindings));
        findings.insert(findings.end(), list->begin(), list->end());
    }
    return findings;
}

} // namespace pyrometer::analysis
