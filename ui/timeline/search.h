#pragma once

#include "ui/timeline/timelineview.h"

#include <QString>

#include <vector>

namespace pyrometer::ui::timeline {

// Events whose name contains `text` (case-insensitive), or matches it as a regular expression,
// ordered by start time. Each distinct name is tested once, then the tracks are scanned.
// *valid is false for an invalid regular expression.
std::vector<EventRef> findEvents(const trace::Trace &trace, const QString &text, bool regex, bool *valid = nullptr);

} // namespace pyrometer::ui::timeline
