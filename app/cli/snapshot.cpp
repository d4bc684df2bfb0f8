// pyrometer-cli snapshot FILE: a CUDA allocator snapshot's state, its peak, its OOMs, and what was
// live at an instant grouped by stack, compile context or annotation; --diff compares two.
#include "app/cli/arguments.h"
#include "app/cli/callcontext.h"
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "core/snapshot/reader.h"
#include "core/snapshot/replay.h"
#include "core/snapshot/segmentsat.h"
#include "core/snapshot/tracejoin.h"
#include "core/trace/loader.h"
#include "core/util/format.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct SnapshotCliOptions {
    std::string file;
    std::string at = "peak";
    std::string by = "stack";
    std::string diff;
    std::string trace;  // a trace of the same run to join with
    std::string offset; // its clock offset in seconds, else found
    int device = -1;
    std::size_t top = 10;
    Format format = Format::Table;
};

// One snapshot read and replayed, with its instant resolved on the chosen device.
struct Reading {
    std::shared_ptr<const snapshot::Snapshot> snapshot;
    std::vector<snapshot::DeviceReplay> devices;
    const snapshot::DeviceReplay *device = nullptr;
    std::int64_t position = -1;
    std::vector<snapshot::LiveBlock> live;
    std::vector<snapshot::LiveGroup> groups;
    // With --trace: the trace, the join, and per group listed the ops that made it.
    std::shared_ptr<const trace::Trace> trace;
    std::optional<snapshot::TraceJoin> join;
    std::unordered_map<std::string, std::vector<snapshot::GroupOp>> ops; // per group key
};

// Joins the reading's device with --trace; false (after saying why) when the trace cannot be read
// or does not join.
bool joinTrace(Reading &r, const SnapshotCliOptions &options, snapshot::GroupBy by)
{
    std::optional<std::int64_t> offset;
    if (!options.offset.empty()) {
        offset = snapshot::parseOffsetSeconds(options.offset);
        if (!offset) {
            badInput(options.file + ": --offset " + options.offset +
                     ": not seconds as a number (such as -1699999996.000002)");
            return false;
        }
    }
    r.trace = loadTraceInput(options.trace, options.file + ": --trace: ");
    if (!r.trace)
        return false;
    r.join = snapshot::joinTrace(*r.snapshot, *r.device, *r.trace, offset);
    if (!r.join->joined) {
        badInput(options.file + " and " + options.trace + ": " + r.join->message);
        return false;
    }
    r.ops = snapshot::opsByGroup(*r.snapshot, *r.device, r.live, by, *r.trace, *r.join);
    return true;
}

// The ops that made group i's memory, as far as the trace saw.
const std::vector<snapshot::GroupOp> &opsOf(const Reading &r, std::size_t i)
{
    static const std::vector<snapshot::GroupOp> kNone;
    const auto it = r.ops.find(r.groups[i].key);
    return it == r.ops.end() ? kNone : it->second;
}

// The op that made most of group i's memory the trace saw, or "".
std::string madeBy(const Reading &r, std::size_t i)
{
    const auto &ops = opsOf(r, i);
    return ops.empty() ? std::string() : ops.front().name;
}

std::optional<Reading> readAt(const std::string &file, const SnapshotCliOptions &options, snapshot::GroupBy by)
{
    Reading r;
    r.snapshot = loadSnapshotInput(file);
    if (!r.snapshot)
        return std::nullopt;
    r.devices = snapshot::replay(*r.snapshot);
    if (r.devices.empty()) {
        badInput(file + ": the snapshot has no device: neither segments nor traces");
        return std::nullopt;
    }
    if (options.device >= int(r.devices.size())) {
        badInput(file + ": --device " + std::to_string(options.device) + ", but the snapshot has " +
                 std::to_string(r.devices.size()) + " device(s)");
        return std::nullopt;
    }
    if (options.device >= 0) {
        r.device = &r.devices[std::size_t(options.device)];
    } else { // the busiest device
        r.device = &*std::max_element(r.devices.begin(), r.devices.end(),
                                      [](const auto &a, const auto &b) { return a.events.size() < b.events.size(); });
    }
    std::string error;
    const auto position = snapshot::resolveInstant(*r.snapshot, *r.device, options.at, error);
    if (!position) {
        badInput(file + ": --at " + error);
        return std::nullopt;
    }
    r.position = *position;
    r.live = snapshot::liveAt(*r.snapshot, *r.device, r.position);
    r.groups = snapshot::groupLive(*r.snapshot, *r.device, r.live, by);
    return r;
}

nlohmann::json timeJson(const snapshot::Snapshot &s, const snapshot::DeviceReplay &d, std::int64_t position)
{
    if (position < 0 || std::size_t(position) >= d.events.size())
        return nullptr;
    const auto t = s.events.timeUs[d.events[std::size_t(position)]];
    return t == snapshot::Events::kNoTime ? nlohmann::json(nullptr) : nlohmann::json(t);
}

std::int64_t activeAt(const snapshot::DeviceReplay &d, std::int64_t position)
{
    return position < 0 ? d.activeAtStart : d.active[std::size_t(position)];
}
std::int64_t reservedAt(const snapshot::DeviceReplay &d, std::int64_t position)
{
    return position < 0 ? d.reservedAtStart : d.reserved[std::size_t(position)];
}

nlohmann::json snapshotJson(const Reading &r, const std::string &file, const SnapshotCliOptions &options)
{
    const auto &s = *r.snapshot;
    const auto totals = snapshot::segmentTotals(s);
    std::int64_t peak = 0;
    nlohmann::json devices = nlohmann::json::array();
    for (const auto &d : r.devices) {
        peak = std::max(peak, d.peakActive);
        devices.push_back({{"device", d.device},
                           {"events", d.events.size()},
                           {"active_bytes_at_start", d.activeAtStart},
                           {"reserved_bytes_at_start", d.reservedAtStart},
                           {"peak_active_bytes", d.peakActive},
                           {"active_bytes_at_trace_end", d.activeAtTraceEnd},
                           {"recording_stopped_early", snapshot::recordingStoppedEarly(d)},
                           {"peak_event", d.peakPosition},
                           {"peak_time_us", timeJson(s, d, d.peakPosition)}});
    }
    nlohmann::json ooms = nlohmann::json::array();
    for (const auto &o : snapshot::oomReports(s, r.devices))
        ooms.push_back(
            {{"device", o.device},
             {"event", o.position},
             {"time_us", o.timeUs == snapshot::Events::kNoTime ? nlohmann::json(nullptr) : nlohmann::json(o.timeUs)},
             {"requested_bytes", o.requestedBytes},
             {"stream", o.stream},
             {"device_free_bytes", o.deviceFreeBytes},
             {"active_bytes", o.activeBytes},
             {"reserved_bytes", o.reservedBytes},
             {"segments_at_oom", o.segmentsAtOom},
             {"cached_free_bytes", o.cachedFreeBytes},
             {"largest_free_block", o.largestFreeBlock},
             {"usable_free_bytes", o.usableFreeBytes},
             {"usable_largest_free_block", o.usableLargestFree},
             {"verdict", o.verdict}});
    nlohmann::json groups = nlohmann::json::array();
    for (std::size_t i = 0; i < r.groups.size() && (options.top == 0 || i < options.top); ++i) {
        groups.push_back({{"key", r.groups[i].key},
                          {"label", r.groups[i].label},
                          {"bytes", r.groups[i].bytes},
                          {"blocks", r.groups[i].blocks}});
        if (r.join) {
            nlohmann::json ops = nlohmann::json::array();
            for (const auto &op : opsOf(r, i))
                ops.push_back({{"name", op.name}, {"path", op.path}, {"bytes", op.bytes}, {"blocks", op.blocks}});
            groups.back()["ops"] = std::move(ops);
        }
    }
    nlohmann::json settings = nlohmann::json::object();
    for (const auto &[key, value] : s.settings)
        settings[key] = value;
    std::int64_t liveBytes = 0;
    for (const auto &b : r.live)
        liveBytes += b.size;
    const auto then = snapshot::segmentsAt(s, *r.device, r.position);
    nlohmann::json join = nullptr;
    if (r.join)
        join = {{"trace", options.trace},
                {"device", r.join->device},
                {"offset_ns", r.join->offsetNs},
                {"offset_from_user", r.join->offsetFromUser},
                {"trace_allocations", r.join->traceAllocations},
                {"matched", r.join->matched},
                {"spread_ns", r.join->spreadNs},
                {"message", r.join->message}};
    return {{"file", file},
            {"trace_join", join},
            {"protocol", s.protocol},
            {"segments", totals.segments},
            {"blocks", totals.blocks},
            {"reserved_bytes", totals.reservedBytes},
            {"allocated_bytes", totals.allocatedBytes},
            {"active_bytes", totals.activeBytes},
            {"requested_bytes", totals.requestedBytes},
            {"free_bytes", totals.freeBytes},
            {"largest_free_block", totals.largestFreeBlock},
            {"events", s.events.count()},
            {"frames", s.frames.size()},
            {"stacks", s.stackCount()},
            {"has_times", s.hasTimes},
            {"peak_active_bytes", peak},
            {"devices", devices},
            {"ooms", ooms},
            {"allocator_settings", settings},
            {"at",
             {{"device", r.device->device},
              {"instant", options.at},
              {"event", r.position},
              {"time_us", timeJson(s, *r.device, r.position)},
              {"active_bytes", activeAt(*r.device, r.position)},
              {"reserved_bytes", reservedAt(*r.device, r.position)},
              {"segments", then.segments.size()},
              {"free_bytes", then.freeBytes},
              {"largest_free_block", then.largestFree},
              {"live_blocks", r.live.size()},
              {"live_bytes", liveBytes},
              {"by", options.by},
              {"groups", groups}}}};
}

std::string instantLabel(const Reading &r, const std::string &at)
{
    const auto &s = *r.snapshot;
    std::string text = at + " (device " + std::to_string(r.device->device) + ", ";
    if (r.position < 0)
        return text + "before the first event)";
    text += "after event " + std::to_string(r.position) + " of " + std::to_string(r.device->events.size());
    const auto first = s.events.timeUs[r.device->events.front()];
    const auto t = s.events.timeUs[r.device->events[std::size_t(r.position)]];
    if (s.hasTimes)
        text += ", " + formatDuration((t - first) * 1000) + " after the first";
    return text + ")";
}

int writeSummary(const Reading &r, const SnapshotCliOptions &options)
{
    const auto &s = *r.snapshot;
    const auto totals = snapshot::segmentTotals(s);
    const auto b = [&](std::int64_t v) { return bytesText(v, options.format); };
    TextTable facts;
    facts.header = {"figure", "value"};
    facts.rightAligned = {false, true};
    facts.rows = {{"segments", std::to_string(totals.segments)},
                  {"reserved", b(totals.reservedBytes)},
                  {"allocated", b(totals.allocatedBytes)},
                  {"active", b(totals.activeBytes)},
                  {"requested", b(totals.requestedBytes)},
                  {"free in segments", b(totals.freeBytes)},
                  {"largest free block", b(totals.largestFreeBlock)},
                  {"events", std::to_string(s.events.count())},
                  {"peak active (device " + std::to_string(r.device->device) + ")", b(r.device->peakActive)}};
    const auto ooms = snapshot::oomReports(s, r.devices);
    for (const auto &o : ooms)
        facts.rows.push_back({"OOM on device " + std::to_string(o.device) + " at event " + std::to_string(o.position),
                              b(o.requestedBytes) + " asked"});
    writeTable(cliOut(), facts, options.format);
    if (r.join)
        writeText(cliOut(), options.trace + ": " + r.join->message, options.format);
    for (const auto &d : r.devices) {
        if (snapshot::recordingStoppedEarly(d))
            writeText(cliOut(),
                      "Device " + std::to_string(d.device) + ": the trace ends with " +
                          bytesText(d.activeAtTraceEnd, Format::Table) + " active but the segments hold " +
                          bytesText(d.activeAtSnapshot, Format::Table) +
                          ": recording stopped before the snapshot was taken, and what was freed or allocated after it "
                          "is not in the trace.",
                      options.format);
    }
    for (const auto &o : ooms)
        writeText(cliOut(), "OOM, device " + std::to_string(o.device) + ": " + o.verdict + ".", options.format);
    const auto then = snapshot::segmentsAt(s, *r.device, r.position);
    writeText(cliOut(),
              "Live at " + instantLabel(r, options.at) + ": the allocator held " +
                  std::to_string(then.segments.size()) + " segments, " + bytesText(then.reservedBytes, Format::Table) +
                  " reserved, " + bytesText(then.freeBytes, Format::Table) + " of it free, the largest free piece " +
                  bytesText(then.largestFree, Format::Table) + ". By " + options.by + ":",
              options.format);
    TextTable groups;
    groups.header = {options.by, "bytes", "blocks"};
    groups.rightAligned = {false, true, true};
    if (r.join) {
        groups.header.push_back("made by");
        groups.rightAligned.push_back(false);
    }
    for (std::size_t i = 0; i < r.groups.size() && (options.top == 0 || i < options.top); ++i) {
        groups.rows.push_back({r.groups[i].label, b(r.groups[i].bytes), std::to_string(r.groups[i].blocks)});
        if (r.join)
            groups.rows.back().push_back(madeBy(r, i));
    }
    writeTable(cliOut(), groups, options.format);
    return kSuccess;
}

int runSnapshot(const SnapshotCliOptions &options)
{
    const auto by = options.by == "context"      ? snapshot::GroupBy::Context
                    : options.by == "annotation" ? snapshot::GroupBy::Annotation
                                                 : snapshot::GroupBy::Stack;
    auto reading = readAt(options.file, options, by);
    if (!reading)
        return kBadInput;
    if (!options.trace.empty() && !joinTrace(*reading, options, by))
        return kBadInput;
    if (options.diff.empty()) {
        if (options.format == Format::Json) {
            writeJson(cliOut(), snapshotJson(*reading, options.file, options));
            return kSuccess;
        }
        if (options.format == Format::Csv) { // the groups alone: one table per file
            TextTable groups;
            groups.header = {options.by, "label", "bytes", "blocks"};
            if (reading->join)
                groups.header.push_back("made_by");
            for (std::size_t i = 0; i < reading->groups.size(); ++i) {
                const auto &g = reading->groups[i];
                groups.rows.push_back({g.key, g.label, std::to_string(g.bytes), std::to_string(g.blocks)});
                if (reading->join)
                    groups.rows.back().push_back(madeBy(*reading, i));
            }
            writeTable(cliOut(), groups, options.format);
            return kSuccess;
        }
        return writeSummary(*reading, options);
    }
    const auto other = readAt(options.diff, options, by);
    if (!other)
        return kBadInput;
    const auto deltas = snapshot::diffGroups(reading->groups, other->groups);
    const std::size_t count = options.top > 0 ? std::min(options.top, deltas.size()) : deltas.size();
    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (std::size_t i = 0; i < count; ++i)
            rows.push_back({{"key", deltas[i].key},
                            {"label", deltas[i].label},
                            {"base_bytes", deltas[i].baseBytes},
                            {"other_bytes", deltas[i].otherBytes},
                            {"delta_bytes", deltas[i].delta()}});
        writeJson(cliOut(), {{"base", snapshotJson(*reading, options.file, options)},
                             {"other", snapshotJson(*other, options.diff, options)},
                             {"by", options.by},
                             {"grew", rows}});
        return kSuccess;
    }
    writeText(cliOut(),
              "Live at " + options.at + ": " + options.file + " against " + options.diff + ", by " + options.by +
                  ", largest growth first:",
              options.format);
    TextTable table;
    table.header = {options.by, "base", "other", "delta"};
    table.rightAligned = {false, true, true, true};
    for (std::size_t i = 0; i < count; ++i)
        table.rows.push_back({options.format == Format::Csv ? deltas[i].key : deltas[i].label,
                              bytesText(deltas[i].baseBytes, options.format),
                              bytesText(deltas[i].otherBytes, options.format),
                              bytesText(deltas[i].delta(), options.format)});
    writeTable(cliOut(), table, options.format);
    return kSuccess;
}

} // namespace

void setupSnapshot(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<SnapshotCliOptions>();
    command.add_option("FILE", options->file, "A CUDA allocator snapshot (.pickle or .pickle.gz)")->required();
    command.add_option("--at", options->at,
                       "The instant whose live memory is listed: peak (default), oom, oom:N, start, end, #EVENT, "
                       "or a time after the first event (250ms, 1.5s, 40us)");
    command.add_option("--by", options->by, "Group live memory by stack (default), context or annotation")
        ->check(CLI::IsMember({"stack", "context", "annotation"}));
    command.add_option("--diff", options->diff, "A second snapshot: what grew from FILE to it, at the same instant");
    command.add_option("--trace", options->trace,
                       "A torch.profiler trace of the same run (profile_memory=True): the ops that made each group's "
                       "memory, the clock offset found from its [memory] events");
    command.add_option("--offset", options->offset,
                       "With --trace: seconds to add to the snapshot's times to reach the trace's clock (default: "
                       "found)");
    command.add_option("--device", options->device, "The device (default: the one with most events)")
        ->check(CLI::Range(0, 65535));
    addCountOption(command, "--top", options->top, 0, "Groups listed (0: all)");
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runSnapshot(*options); });
}

} // namespace pyrometer::cli
