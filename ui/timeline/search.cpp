#include "ui/timeline/search.h"

#include <QRegularExpression>

#include <algorithm>

namespace pyrometer::ui::timeline {

std::vector<EventRef> findEvents(const trace::Trace &trace, const QString &text, bool regex, bool *valid)
{
    if (valid)
        *valid = true;
    std::vector<EventRef> found;
    if (text.isEmpty())
        return found;
    const QRegularExpression pattern(regex ? text : QRegularExpression::escape(text),
                                     QRegularExpression::CaseInsensitiveOption);
    if (!pattern.isValid()) {
        if (valid)
            *valid = false;
        return found;
    }
    std::vector<bool> matches(trace.strings.size(), false);
    for (std::size_t i = 0; i < matches.size(); ++i)
        matches[i] = pattern.match(QString::fromUtf8(trace.string(trace::StringId(std::uint32_t(i))))).hasMatch();

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

} // namespace pyrometer::ui::timeline
