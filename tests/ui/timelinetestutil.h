#pragma once
// What the timeline tests share: a trace of known geometry and lookups into it.
// Qt first: moc cannot parse <compare> (included by core headers) before a Qt header.
#include <QString>
#include <QTemporaryDir>

#include "core/trace/loader.h"
#include "ui/timeline/timelineindex.h"
#include "ui/timeline/timelinelayout.h"

#include <fstream>
#include <memory>
#include <optional>
#include <string_view>

namespace pyrometer::testing {

using namespace pyrometer::ui::timeline;

// A trace with known geometry (times in µs):
//  pid 1 tid 1: "outer" 0..1000 holding "inner" 100..300; then 1000 "tiny" events of 10 ns
//               every 100 ns from 2000 µs on; ProfilerStep#0 at 0..1000 (depth 0 sibling? no:
//               the step encloses outer).
//  pid 2 tid 7: two kernels that overlap without nesting: 0..500 and 400..900 (two lanes).
inline std::shared_ptr<const trace::Trace> makeTrace(const QString &dir)
{
    std::ofstream out((dir + "/t.json").toStdString());
    out << R"({"traceEvents":[)";
    out << R"({"ph":"X","name":"ProfilerStep#0","cat":"user_annotation","pid":1,"tid":1,"ts":0,"dur":1000},)";
    out << R"({"ph":"X","name":"outer","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":900},)";
    out << R"({"ph":"X","name":"inner","cat":"cpu_op","pid":1,"tid":1,"ts":100,"dur":200},)";
    for (int i = 0; i < 1000; ++i)
        out << R"({"ph":"X","name":"tiny","cat":"cpu_op","pid":1,"tid":1,"ts":)" << 2000 + i * 0.1 << R"(,"dur":0.01},)";
    out << R"({"ph":"X","name":"kernelA","cat":"kernel","pid":2,"tid":7,"ts":0,"dur":500},)";
    out << R"({"ph":"X","name":"kernelB","cat":"kernel","pid":2,"tid":7,"ts":400,"dur":500})";
    out << "]}";
    out.close();
    auto loaded = trace::loadTrace((dir + "/t.json").toStdString());
    return loaded.ok() ? loaded.value() : nullptr;
}

inline trace::TrackId trackNamed(const trace::Trace &trace, std::int64_t pid)
{
    for (std::size_t t = 0; t < trace.tracks.size(); ++t) {
        if (trace.process(trace.tracks[t].process).pid.number == pid)
            return trace::TrackId(std::uint32_t(t));
    }
    return {};
}

inline std::optional<std::uint32_t> eventNamed(const trace::Trace &trace, trace::TrackId track, std::string_view name)
{
    const auto &t = trace.track(track);
    for (std::uint32_t e = 0; e < t.size(); ++e) {
        if (trace.string(t.eventName[e]) == name)
            return e;
    }
    return std::nullopt;
}

inline Viewport viewOf(double startUs, double endUs, int width = 1000, int height = 400)
{
    return Viewport{startUs * 1000, (endUs - startUs) * 1000 / width, width, 0, height};
}

// The trace above, indexed and laid out, for a test case's members.
struct TimelineFixture {
    QTemporaryDir m_dir;
    std::shared_ptr<const trace::Trace> m_trace;
    std::shared_ptr<const TimelineIndex> m_index;
    TimelineLayout m_layout;

    bool load()
    {
        m_trace = makeTrace(m_dir.path());
        m_index = m_trace ? buildTimelineIndex(m_trace) : nullptr;
        if (!m_index)
            return false;
        m_layout = buildLayout(*m_index, {});
        return true;
    }
};

} // namespace pyrometer::testing
