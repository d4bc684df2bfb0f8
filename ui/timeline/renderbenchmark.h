#pragma once

#include <QString>

#include <cstdio>

namespace pyrometer::ui::timeline {

// pyrometer --render-benchmark TRACE: loads TRACE, renders the timeline offscreen at
// 1920x1080 through a fixed sequence (fit all, 10 zoom steps into the middle, 10 pans, zoom
// back out), timing each frame (draw list + paint), and prints as its last line
// {"events", "frames", "median_ms", "max_ms"}. Returns the process exit status.
int runRenderBenchmark(const QString &tracePath, std::FILE *out);

} // namespace pyrometer::ui::timeline
