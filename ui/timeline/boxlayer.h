#pragma once

#include "ui/timeline/drawlist.h"

#include <QImage>

#include <vector>

namespace pyrometer::ui::timeline {

// Writes the fills straight into an RGB32 or ARGB32 premultiplied image, scaled by its device pixel
// ratio and clipped to it. A zoomed-out frame is tens of thousands of boxes a pixel or two
// wide, separated by gaps; through QPainter each costs a call per box and scanline (25 ms
// for 30k boxes here), written directly they cost their pixels. Colours are opaque ARGB.
void rasterizeFills(QImage &image, const std::vector<Fill> &fills);

} // namespace pyrometer::ui::timeline
