#include "core/analysis/roofline.h"

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

enum Mark : std::uint8_t { Plain, Counted, Inside };

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
    row.roof = roofFor(*device, row.dtype, row.unit, isConvolution(row.name) || isConvolution(row.shape));
    const double attainable = row.intensity >= 0 ? row.roof->at(row.intensity) : row.roof->peakFlops;
    row.percentOfRoof = attainable > 0 ? 100 * row.achievedFlops / attainable : OpWork::kUnknown;
    if (row.intensity >= 0)
        row.bound = row.intensity < row.roof->ridge() ? Bound::Memory : Bound::Compute;
}

Roofline buildRoofline(const TraceIndex &index, const RooflineOptions &options, const StopToken *stop)
{
    const auto &trace = *index.trace;
    Roofline result;
    result.gpu = index.hasDevice;
    if (!trace.info.devices.empty())
        result.traceDevice = trace.info.devices.front().name;
    result.device = options.device ? options.device : findDevice(result.traceDevice);
    if (!result.device)
        result.device = options.fallbackDevice;

    WorkCache cache(trace);
    std::map<std::tuple<std::string, std::string, bool>, Sum> sums; // name, shape, known
    const auto sumFor = [&](const trace::Track &track, std::uint32_t e, bool known) -> Sum & {
        std::string shape;
        if (options.byShape && track.args[e] != trace::Track::kNoArgs && trace.args[track.args[e]].inputDims.isValid())
            shape = std::string(trace.string(trace.args[track.args[e]].inputDims));
        auto &sum = sums[{std::string(trace.string(track.eventName[e])), shape, known}];
        if (sum.row.name.empty()) {
            sum.row.name = trace.string(track.eventName[e]);
            sum.row.shape = shape;
        }
        return sum;
    };

    // Per track: which ops are counted, and for the others the counted op they lie in.
    std::vector<std::vector<std::uint8_t>> marks(trace.tracks.size());
    std::vector<std::vector<bool>> holdsCounted(trace.tracks.size());
    std::uint32_t sinceCheck = 0;
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &ti = index.tracks[t];
        if (!ti.hasOps || !options.processes.contains(trace.tracks[t].process.value))
            continue;
        const auto &track = trace.tracks[t];
        auto &mark = marks[t];
        mark.assign(track.size(), Plain);
        holdsCounted[t].assign(track.size(), false);
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (ti.kind[i] != EventKind::Op)
                continue;
            if (stop && (sinceCheck++ & 0xFFFFu) == 0 && stop->stopRequested())
                return {};
            const auto parent = ti.opParent[i];
            if (parent.isValid() && mark[parent.value] != Plain) {
                mark[i] = Inside;
                continue;
            }
            const auto &work = cache.work(track, i);
            if (!work.knownFlops())
                continue;
            mark[i] = Counted;
            for (auto p = parent; p.isValid(); p = ti.opParent[p.value])
                holdsCounted[t][p.value] = true;
        }
    }

    // The counted op an event of the op tree lies in, or the outermost aten op of its chain.
    const auto owner = [&](EventRef op) -> std::pair<EventRef, bool> {
        const auto &ti = index.track(op.track);
        const auto &track = trace.track(op.track);
        const auto &mark = marks[op.track.value];
        EventRef outermostAten;
        for (auto e = op.event; e.isValid(); e = ti.opParent[e.value]) {
            if (mark[e.value] == Counted)
                return {{op.track, e}, true};
            if (isAten(trace.string(track.eventName[e.value])))
                outermostAten = {op.track, e};
        }
        return {outermostAten.isValid() ? outermostAten : op, false};
    };
    const auto inScope = [&](EventRef op) {
        const auto &track = trace.track(op.track);
        return options.range.contains(track.start[op.event.value]) && options.processes.contains(track.process.value);
    };
    // Calls of unknown work: each op the first time time is put on it (a GPU op launches many
    // kernels); calls of known work are counted with their work below.
    std::set<EventRef> unknownCalls;
    const auto count = [&](EventRef op, bool known, std::int64_t ns) {
        const auto &track = trace.track(op.track);
        auto &sum = sumFor(track, op.event.value, known);
        sum.row.timeNs += ns;
        if (!known && unknownCalls.insert(op).second)
            ++sum.row.calls;
        if (ns > sum.longestNs) {
            sum.longestNs = ns;
            sum.row.longest = op;
        }
        result.totalNs += ns;
        if (known)
            result.knownNs += ns;
    };

    // Calls and work of the counted ops, and the CPU's times.
    for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
        if (marks[t].empty())
            continue;
        const auto &track = trace.tracks[t];
        const auto &ti = index.tracks[t];
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            const EventRef op{TrackId(t), EventIndex(i)};
            if (marks[t][i] == Inside || ti.kind[i] != EventKind::Op || !inScope(op))
                continue;
            const bool counted = marks[t][i] == Counted;
            if (!counted) {
                // Unknown work: on a CPU trace, outermost aten ops with nothing counted inside.
                const auto parent = ti.opParent[i];
                const bool outermost = !parent.isValid() || !isAten(trace.string(track.eventName[parent.value]));
                if (!result.gpu && outermost && !holdsCounted[t][i] && isAten(trace.string(track.eventName[i])))
                    count(op, false, track.duration[i]);
                continue;
            }
            const auto &work = cache.work(track, i);
            auto &sum = sumFor(track, i, true);
            auto &row = sum.row;
            ++row.calls;
            row.flops = std::max(row.flops, 0.0) + work.flops;
            sum.bytesKnown = sum.bytesKnown && work.knownBytes();
            row.bytes = std::max(row.bytes, 0.0) + std::max(work.bytes, 0.0);
            row.dtype = work.dtype;
            row.unit = work.unit;
            if (!result.gpu)
                count(op, true, track.duration[i]);
        }
    }
    // On a GPU trace, each device event's time goes to the op that launched it.
    if (result.gpu) {
        for (std::uint32_t t = 0; t < trace.tracks.size(); ++t) {
            const auto &ti = index.tracks[t];
            if (!ti.hasDevice)
                continue;
            const auto &track = trace.tracks[t];
            for (std::uint32_t i = 0; i < track.size(); ++i) {
                if (!isDeviceKind(ti.kind[i]) || !ti.launchOp[i].isValid() || marks[ti.launchOp[i].track.value].empty())
                    continue;
                const auto [op, known] = owner(ti.launchOp[i]);
                if (inScope(op))
                    count(op, known, track.duration[i]);
            }
        }
    }

    for (auto &[key, sum] : sums) {
        auto &row = sum.row;
        if (row.timeNs == 0) // ran nothing on the device (a CPU tensor's op in a GPU trace)
            continue;
        if (!sum.bytesKnown)
            row.bytes = OpWork::kUnknown;
        placeUnderRoof(row, result.device);
        result.rows.push_back(std::move(row));
    }
    std::stable_sort(result.rows.begin(), result.rows.end(), [](const RooflineRow &a, const RooflineRow &b) {
        if (a.known() != b.known())
            return a.known();
        return a.timeNs > b.timeNs;
    });
    if (options.top > 0 && result.rows.size() > options.top)
        result.rows.resize(options.top);
    return result;
}

std::vector<RooflineFinding> rooflineFindings(const Roofline &roofline)
{
    constexpr double kMinShare = 0.05;      // of the total time: smaller ops are not worth a finding
    constexpr double kFarBelowRoof = 50;    // % of the roof a compute-bound op should reach
    constexpr std::size_t kMostFindings = 3; // of each kind
    std::vector<RooflineFinding> memory;
    std::vector<RooflineFinding> compute;
    if (roofline.totalNs <= 0)
        return {};
    for (const auto &row : roofline.rows) {
        const double share = double(row.timeNs) / double(roofline.totalNs);
        if (!row.known() || !row.roof || share < kMinShare)
            continue;
        const auto percent = [](double value) {
            if (value >= 9.95)
                return std::to_string(int(value + 0.5)) + "%";
            const int tenths = int(value * 10 + 0.5);
            return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
        };
        const std::string where = row.name + (row.shape.empty() ? "" : " " + row.shape);
        if (row.bound == Bound::Memory) {
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
            compute.push_back({RooflineFinding::Kind::BelowComputeRoof, row.name,
                               where + " is compute-bound but reaches " + percent(row.percentOfRoof) + " of the "
                                   + std::string(precisionName(row.roof->precision)) + " peak (" + percent(100 * share)
                                   + " of the time): try a faster dtype (BF16, TF32), channels_last layout, or shapes "
                                     "that are multiples of 8 so the matrix units tile it fully.",
                               share});
        }
    }
    std::vector<RooflineFinding> findings;
    for (auto *list : {&memory, &compute}) {
        std::stable_sort(list->begin(), list->end(), [](const auto &a, const auto &b) { return a.share > b.share; });
        list->resize(std::min(list->size(), kMostFindings));
        findings.insert(findings.end(), list->begin(), list->end());
    }
    return findings;
}

} // namespace pyrometer::analysis
