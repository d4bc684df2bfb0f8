#pragma once

#include "core/analysis/timerange.h"
#include "core/trace/combine.h"
#include "ui/timeline/timelineindex.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace pyrometer::ui::timeline {

enum class RowKind : std::uint8_t { Process, Slices, Counter };

// One horizontal band of the timeline, in content coordinates (y from the top of the first
// row, before scrolling).
struct LayoutRow {
    RowKind kind = RowKind::Slices;
    int y = 0;
    int height = 0;
    std::uint32_t process = 0; // index into Trace::processes
    std::uint32_t ref = 0;     // Slices: index into TimelineIndex::rows; Counter: Trace::counters
    bool firstOfTrack = false; // Slices: the row that carries the track's name
};

struct LayoutMetrics {
    int processHeight = 22;
    int sliceHeight = 18;
    int counterHeight = 36;
    int trackGap = 4;
};

// Which tracks come first.
enum class TrackOrder : std::uint8_t {
    DevicesFirst, // processes holding GPU tracks (kernels, memcpy, memset) first, and within a
                  // process its GPU tracks first: where an engineer looks first
    AsRecorded,   // the trace's own order (its sort indices)
};

// Where every row is, given which processes are collapsed: processes in display order,
// each with its tracks (rows by lane, then depth) and its counters. Tracks without events are
// left out.
struct TimelineLayout {
    std::vector<LayoutRow> rows;
    std::vector<int> sliceRowToLayout; // index row -> layout row, -1 when collapsed
    int height = 0;

    // The layout row at content y, or -1.
    int rowAt(int y) const;
    // Layout rows intersecting [top, bottom): a half-open index range.
    std::pair<int, int> rowsIn(int top, int bottom) const;
    // The header row of the process layout row r belongs to, or -1.
    int processHeaderOf(int r) const;
};

using trace::processPart;
// The parts the trace combines, each once, in the order of their first process ({0} for a
// trace of one file).
std::vector<std::uint32_t> traceParts(const trace::Trace &trace);
// The processes of one part (a rank's CPU and GPU processes), for tables of that part alone.
analysis::ProcessSet partProcesses(const trace::Trace &trace, std::uint32_t part);
// The label a part's processes carry before " · " ("rank 3"), else "part N".
std::string partLabel(const trace::Trace &trace, std::uint32_t part);

TimelineLayout buildLayout(const TimelineIndex &index, const std::set<std::uint32_t> &collapsedProcesses,
                           const LayoutMetrics &metrics = {}, TrackOrder order = TrackOrder::DevicesFirst);

} // namespace pyrometer::ui::timeline
