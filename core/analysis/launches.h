#pragma once

#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// Kernel launches: each device event matched with the runtime or driver call that launched it
// (the same correlation id), and how long the GPU took to start it.

// A graph replay (graphreplays.h) is one launch: its call, its first device event as the
// kernel, its span (first start to last end) as the kernel's time, its first event's delay.
struct Launch {
    std::int64_t correlation = -1;
    EventRef kernel; // the kernel, memcpy or memset (a replay: its first)
    EventRef call;   // cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel, cudaMemcpyAsync, ...
    trace::StringId kernelName; // in the trace's strings: one copy of a name for all its launches
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::int64_t callStartNs = 0;
    std::int64_t callNs = 0; // the call's duration
    std::int64_t kernelStartNs = 0;
    std::int64_t kernelNs = 0; // the kernel's duration
    std::int64_t delayNs = 0;  // launch delay: kernel start - end of the call (may be < 0 for
                               // clocks that disagree; kept as measured)
    bool outlier = false;      // delay far above the median of its kernel name (see below)
    std::int32_t graphId = -1; // a replay: its graph id (-1 when its events do not say)
    std::uint32_t graphEvents = 0; // a replay: the device events it ran; 0 for an eager launch
    bool isReplay() const { return graphEvents > 0; }
    bool operator==(const Launch &) const = default;
};

// A distribution of launch delays, call and kernel durations, per kernel name or per stream.
struct LaunchGroup {
    std::string name;         // the kernel's name ("graph 590" for a graph's replays); per stream: "cuda:0 stream 7"
    std::int32_t device = -1; // per stream only
    std::int32_t stream = -1; // per stream only
    std::uint64_t count = 0;
    std::int64_t delayMedianNs = 0;
    std::int64_t delayP90Ns = 0;
    std::int64_t delayMaxNs = 0;
    std::int64_t delayTotalNs = 0; // a sum of waits, for ordering only: in a GPU-bound loop the
                                   // same queueing counts once per waiting launch (minutes of
                                   // "delay" in a trace of a second); not shown in tables
    std::int64_t callMeanNs = 0;
    std::int64_t kernelMeanNs = 0;
    std::uint64_t outliers = 0;
    bool operator==(const LaunchGroup &) const = default;
};

// How many launched kernels wait on one stream over time: +1 when the launching call starts,
// -1 when the kernel ends (a step function; time[i] holds from then to time[i+1]).
struct QueueSeries {
    std::int32_t device = -1;
    std::int32_t stream = -1;
    std::vector<std::int64_t> timeNs;
    std::vector<std::int32_t> length;
    std::int32_t maxLength = 0;
    std::int64_t maxAtNs = 0;
    // Over the stream's window, from the first point (a launching call's start) to the last (its
    // last kernel's end):
    std::int64_t windowNs = 0;
    std::int64_t emptyNs = 0;   // time the queue held nothing: no kernel ran on the stream and
                                // none was launched for it, so the GPU sat idle waiting for a
                                // launch (the CPU was elsewhere: data loading, Python, a sync)
    std::int64_t queuedNs = 0;  // windowNs - emptyNs
    std::int64_t depthNsSum = 0; // the integral of length over the window (length x ns)
    // Mean launches queued (the running kernel included) while the queue was not empty.
    double meanDepth() const { return queuedNs > 0 ? double(depthNsSum) / double(queuedNs) : 0.0; }
    double emptyShare() const { return windowNs > 0 ? double(emptyNs) / double(windowNs) : 0.0; }
    bool operator==(const QueueSeries &) const = default;
};

// What a launch delay means in a trace: the one launch verdict every page, report and advice
// rule shows. GPU-bound: while work is queued, on average at least kGpuBoundDepth launches wait
// on the stream (one runs, the others queue behind it), so a launch's delay is time queued
// behind other kernels and the launch overhead is hidden; summing those delays counts the same
// queueing once per waiting launch; and the device is rarely empty (below kHostBoundEmptyShare
// of its time with nothing queued on any stream). CPU-bound: the queue holds less, or the
// device sits empty for longer: a launch's delay is its launch cost, and the GPU waits for the
// CPU.
enum class LaunchBound : std::uint8_t { None, GpuBound, CpuBound };
inline constexpr double kGpuBoundDepth = 2.0;
inline constexpr double kHostBoundEmptyShare = 0.25;
std::string_view launchBoundName(LaunchBound bound); // "", "GPU-bound", "CPU-bound"

// Every stream's queue together. Window and empty time are per device, over the union of its
// streams (an idle copy stream beside a busy compute stream leaves the device busy), summed over
// devices; queued time and depth are the streams' sums, so the mean depth weighs each stream by
// its queued time.
struct QueueSummary {
    std::int64_t windowNs = 0;
    std::int64_t emptyNs = 0;
    std::int64_t queuedNs = 0;
    std::int64_t depthNsSum = 0;
    std::int32_t maxLength = 0;
    LaunchBound bound = LaunchBound::None; // None without launches
    double meanDepth() const { return queuedNs > 0 ? double(depthNsSum) / double(queuedNs) : 0.0; }
    double emptyShare() const { return windowNs > 0 ? double(emptyNs) / double(windowNs) : 0.0; }
    bool operator==(const QueueSummary &) const = default;
};
QueueSummary summarizeQueues(const std::vector<QueueSeries> &queues);

// One sentence for a page or the CLI: which case the trace is in and what its delays mean.
// device: the accelerator's word (workclass.h acceleratorName).
std::string describeQueues(const QueueSummary &summary, std::string_view device = "GPU");

struct LaunchStats {
    std::vector<Launch> launches;      // in kernel start order
    std::vector<LaunchGroup> byKernel; // by total delay, largest first
    std::vector<LaunchGroup> byStream; // by device, then stream
    std::vector<QueueSeries> queues;   // by device, then stream
    std::int32_t maxQueueLength = 0;   // over every stream
    QueueSummary queue;                // summarizeQueues(queues)
    bool operator==(const LaunchStats &) const = default;
};

// A launch is an outlier when its delay exceeds kOutlierFactor x the median delay of its kernel
// name and that median by at least kOutlierMinNs: far above what that kernel usually waits. A
// negative median (a synchronous copy that runs inside its call) counts as 0.
inline constexpr double kOutlierFactor = 4.0;
inline constexpr std::int64_t kOutlierMinNs = 50'000;

// The runtime or driver call (EventKind::Runtime) that launched each device event: the call with
// the same correlation id. Ids <= 0 match nothing (old traces write 0 for "none"). When several
// calls share an id (old traces reuse them), the one that started last at or before the device
// event started wins (not the one that ended last: a synchronous cudaMemcpy's copy runs inside
// its call); when none had started by then (clocks that disagree), the one that started first.
struct LaunchCalls {
    std::vector<std::vector<EventRef>> byTrack; // by TrackId, per event; empty for tracks without device events

    EventRef of(trace::TrackId track, std::uint32_t event) const
    {
        const auto &calls = byTrack[track.value];
        return event < calls.size() ? calls[event] : EventRef{};
    }
    EventRef of(EventRef deviceEvent) const { return of(deviceEvent.track, deviceEvent.event.value); }
    bool operator==(const LaunchCalls &) const = default;
};
LaunchCalls launchCalls(const TraceIndex &index, const StopToken *stop = nullptr);

// Newer torch puts a graph's kernels on logical lanes, "stream" ids from 100000 up: lane N.
inline constexpr std::int32_t kFirstLogicalLane = 100000;

// The name of a stream in tables: "cuda:0 stream 7" ("stream 7" when the device is unknown;
// "cuda:0 lane 2" for logical lane 100002). ROCm traces say "cuda" too, as torch names its HIP
// devices.
std::string streamName(std::int32_t device, std::int32_t stream);

// Launches whose kernel starts in range. Device events without a matching call are left out.
// A graph replay counts once (per stream it ran on), grouped under its graph's name.
// Median and p90 are nearest-rank (the median of an even count is the lower middle value);
// means are truncated to whole ns. Queue points at the same ns are netted: a kernel that ends
// at the very ns the next call starts does not make the queue one longer. A call that starts
// after its kernel ended (clock skew) is queued from the kernel's start instead.
LaunchStats buildLaunchStats(const TraceIndex &index, const TimeRange &range = {}, const StopToken *stop = nullptr);

} // namespace pyrometer::analysis
