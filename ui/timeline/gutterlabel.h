#pragma once

#include <QFontMetrics>
#include <QString>

#include <string>

namespace pyrometer::ui::timeline {

// A process header's label in `width` pixels of `metrics`' font. Whole where it fits; else the
// body (the process's own name) is elided on the right between the head (the collapse mark and
// a rank, "▾ rank 0 · ") and the tail (its device, " (GPU 0)"), which say more when names
// repeat; where even head and tail do not fit, the whole label is elided on the right. Never
// cut inside a token: every label shorter than the whole one holds "…".
QString fitProcessLabel(const QString &head, const QString &body, const QString &tail, const QFontMetrics &metrics,
                        int width);

// A counter row's scale under its name: "max 70.0 MiB" for the memory curves (the trace's, and an
// allocator snapshot's joined to it, "Snapshot active (device 0)"), "max 1234" for any other.
QString counterPeakText(const std::string &name, double maxValue);

} // namespace pyrometer::ui::timeline
