#pragma once

#include "ui/timeline/timelineview.h"

#include <QString>

#include <vector>

namespace pyrometer::ui::timeline {

enum class SearchMode {
    Contains, // the name contains the text, case-insensitive
    Regex,    // the name matches the regular expression, case-insensitive
    Exact,    // the name is the text (a table row's events)
};

// Events whose name matches `text` as mode says, ordered by start time. Each distinct name is
// tested once, then the tracks are scanned. *valid is false for an invalid regular expression.
std::vector<EventRef> findEvents(const trace::Trace &trace, const QString &text, SearchMode mode, bool *valid = nullptr);
inline std::vector<EventRef> findEvents(const trace::Trace &trace, const QString &text, bool regex, bool *valid = nullptr)
{
    return findEvents(trace, text, regex ? SearchMode::Regex : SearchMode::Contains, valid);
}

// The position in matches of the longest event (the first of equals), or -1 when empty.
int longestMatch(const trace::Trace &trace, const std::vector<EventRef> &matches);

} // namespace pyrometer::ui::timeline
