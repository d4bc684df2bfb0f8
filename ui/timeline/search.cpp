#include "ui/timeline/search.h"

#include <QRegularExpression>

#include <algorithm>

namespace pyrometer::ui::timeline {

std::vector<EventRef> findEvents(const trace::Trace &trace, const QString &text, SearchMode mode, bool *valid)
{
    if (valid)
        *valid = true;
    std::vector<EventRef> found;
    if (text.isEmpty())
        return found;
    std::vector<bool> matches(trace.strings.size(), false);
    if (mode == SearchMode::Exact) {
        const QByteArray name = text.toUtf8();
        for (std::size_t i = 0; i < matches.size(); ++i)
            matches[i] = trace.string(trace::StringId(std::uint32_t(i))) == std::string_view(name.constData(), std::size_t(name.size()));
    } else {
        const QRegularExpression pattern(mode == SearchMode::Regex ? text : QRegularExpression::escape(text),
                                         QRegularExpression::CaseInsensitiveOption);
        if (!pattern.isValid()) {
            if (valid)
                *valid = false;
            return found;
        }
        for (std::size_t i = 0; i < matches.size(); ++i)
            matches[i] = pattern.match(QString::fromUtf8(trace.string(trace::StringId(std::uint32_t(i))))).hasMatch();
    }

    for (std::size_t t = 0; t < trace.tracks.size(); ++t) {
        const auto &track = trace.tracks[t];
        for (std::size_t e = 0; e < track.size(); ++e) {
            const auto name = track.eventName[e];
            if (name.isValid() && name.value < matches.size() && matches[name.value])
                found.push_back({trace::TrackId(std::uint32_t(t)), std::uint32_t(e)});
        }
    }
    std::sort(found.begin(), found.end(), [&](const EventRef &a, const EventRef &b) {
        const auto sa = trace.track(a.track).start[a.event];
        const auto sb = trace.track(b.track).start[b.event];
        return sa != sb ? sa < sb : a < b;
    });
    return found;
}

int longestMatch(const trace::Trace &trace, const std::vector<EventRef> &matches)
{
    int longest = -1;
    for (std::size_t i = 0; i < matches.size(); ++i) {
        const auto &m = matches[i];
        if (longest < 0 || trace.track(m.track).duration[m.event] >
                               trace.track(matches[std::size_t(longest)].track).duration[matches[std::size_t(longest)].event])
            longest = int(i);
    }
    return longest;
}

} // namespace pyrometer::ui::timeline
