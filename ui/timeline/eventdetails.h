#pragma once

#include "ui/timeline/timelineview.h"

#include <QString>

namespace pyrometer::ui::timeline {

// Self time of an event: its duration minus the durations of the events directly nested in
// it on the same lane.
std::int64_t selfTime(const trace::Track &track, std::uint32_t event);

// The details pane's HTML for one event: name, category, where, start, duration, self time,
// shapes and ids from its args, its stack of enclosing events, and the events its flows link
// it to (the kernel a launch started, or the launch of a kernel).
QString eventDetailsHtml(const TimelineIndex &index, const EventRef &event);

} // namespace pyrometer::ui::timeline
