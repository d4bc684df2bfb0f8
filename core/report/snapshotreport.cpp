#include "core/report/snapshotreport.h"

#include "core/snapshot/segmentsat.h"
#include "core/util/format.h"

namespace pyrometer::report {

namespace {

std::string bytes(std::int64_t value)
{
    return value < 0 ? "-" + formatBytes(std::uint64_t(-value)) : formatBytes(std::uint64_t(value));
}

// What was live after `position`, by stack, the largest `top` groups with their share.
Table liveTable(const snapshot::Snapshot &s, const snapshot::DeviceReplay &d, std::int64_t position,
                const std::string &caption, std::size_t top)
{
    const auto live = snapshot::liveAt(s, d, position);
    const auto groups = snapshot::groupLive(s, d, live, snapshot::GroupBy::Stack);
    std::int64_t total = 0;
    for (const auto &b : live)
        total += b.size;
    Table table;
    table.caption = caption;
    table.header = {"Allocated at", "Bytes", "Blocks", "Share", "Stack (outermost first)"};
    table.rightAligned = {false, true, true, true, false};
    table.names = {true, false, false, false, true};
    for (std::size_t i = 0; i < groups.size() && i < top; ++i) {
        const auto &g = groups[i];
        const double share = total > 0 ? 100.0 * double(g.bytes) / double(total) : 0.0;
        char percent[16];
        std::snprintf(percent, sizeof percent, "%.1f%%", share);
        table.rows.push_back({g.label, bytes(g.bytes), std::to_string(g.blocks), percent, g.key});
    }
    return table;
}

std::string timeAfterFirst(const snapshot::Snapshot &s, const snapshot::DeviceReplay &d, std::int64_t position)
{
    if (!s.hasTimes || position < 0 || d.events.empty())
        return "";
    const auto &t = s.events.timeUs;
    return ", " + formatDuration((t[d.events[std::size_t(position)]] - t[d.events.front()]) * 1000) +
           " after the first";
}

} // namespace

std::vector<Section> snapshotSections(const snapshot::Snapshot &s, const std::vector<snapshot::DeviceReplay> &devices,
                                      const std::vector<snapshot::OomReport> &ooms, const std::string &name,
                                      const std::string &idPrefix, const ReportOptions &options)
{
    std::vector<Section> sections;
    const auto totals = snapshot::segmentTotals(s);
    Section summary;
    summary.id = idPrefix + "snapshot";
    summary.title = "Memory snapshot: " + name;
    summary.facts = {
        {"Segments", std::to_string(totals.segments)}, {"Reserved", bytes(totals.reservedBytes)},
        {"Allocated", bytes(totals.allocatedBytes)},   {"Active", bytes(totals.activeBytes)},
        {"Free in segments", bytes(totals.freeBytes)}, {"Largest free block", bytes(totals.largestFreeBlock)},
        {"Events", std::to_string(s.events.count())},  {"OOMs", std::to_string(ooms.size())}};
    for (const auto &d : devices) {
        summary.facts.push_back({"Peak active, device " + std::to_string(d.device), bytes(d.peakActive)});
        if (snapshot::recordingStoppedEarly(d))
            summary.paragraphs.push_back("Device " + std::to_string(d.device) + ": the trace ends with " +
                                         bytes(d.activeAtTraceEnd) + " active but the segments hold " +
                                         bytes(d.activeAtSnapshot) +
                                         ": recording stopped before the snapshot was taken.");
    }
    if (!s.hasTimes)
        summary.paragraphs.push_back("The snapshot has no times (an older torch): instants are events.");
    sections.push_back(std::move(summary));

    for (const auto &d : devices) {
        if (d.events.empty())
            continue;
        Section peak;
        peak.id = idPrefix + "snapshot-peak-" + std::to_string(d.device);
        peak.title = "Live at the peak, device " + std::to_string(d.device);
        peak.level = 3;
        peak.paragraphs.push_back(bytes(d.peakActive) + " active after event " + std::to_string(d.peakPosition) +
                                  " of " + std::to_string(d.events.size()) + timeAfterFirst(s, d, d.peakPosition) +
                                  ".");
        peak.tables.push_back(liveTable(s, d, d.peakPosition, "What held it, by stack", options.topRows));
        sections.push_back(std::move(peak));
    }
    for (std::size_t i = 0; i < ooms.size(); ++i) {
        const auto &o = ooms[i];
        const auto device =
            std::find_if(devices.begin(), devices.end(), [&](const auto &d) { return d.device == o.device; });
        if (device == devices.end())
            continue;
        Section oom;
        oom.id = idPrefix + "snapshot-oom-" + std::to_string(i + 1);
        oom.title = "Out of memory, device " + std::to_string(o.device) + ", event " + std::to_string(o.position);
        oom.level = 3;
        oom.paragraphs.push_back(o.verdict + ".");
        oom.facts = {{"Requested", bytes(o.requestedBytes)},
                     {"Stream", std::to_string(o.stream)},
                     {"Free on the device", bytes(o.deviceFreeBytes)},
                     {"Live", bytes(o.activeBytes)},
                     {"Reserved", bytes(o.reservedBytes)},
                     {"Reserved but free", bytes(o.cachedFreeBytes)},
                     {"Largest free block", bytes(o.largestFreeBlock)}};
        oom.tables.push_back(
            liveTable(s, *device, std::int64_t(o.position), "What was live, by stack", options.topRows));
        sections.push_back(std::move(oom));
    }
    return sections;
}

} // namespace pyrometer::report
