#pragma once

#include <QColor>
#include <QRect>
#include <QString>

#include <cstdint>
#include <functional>
#include <vector>

class QHelpEvent;
class QPainter;
class QWidget;

namespace pyrometer::ui::flamegraph {

// One rectangle to paint, in widget coordinates.
struct PaintFrame {
    QRect rect;
    std::uint32_t color = 0; // 0xAARRGGBB
    std::uint32_t key = 0;   // what the label callback is asked for
    bool labelled = true;    // false for merged boxes
};

// Paints frames as whole-pixel rectangles batched by colour (the raster engine fills integer
// rectangles directly), with a one-pixel gap, then labels where at least a few characters
// fit: `label(key)` gives the name and `suffix(key)` a figure shown after it when there is
// room; a name too long is elided, never drawn over its neighbour.
void paintFrames(QPainter &painter, const std::vector<PaintFrame> &frames,
                 const std::function<QString(std::uint32_t)> &label,
                 const std::function<QString(std::uint32_t)> &suffix);

// Shows a frame's tooltip for a help event, or hides the tooltip when there is no text.
void showFrameToolTip(QWidget *widget, const QHelpEvent *event, const QString &text);

// Dark text on light fills, white on dark ones.
QColor textColorOn(std::uint32_t fill);

} // namespace pyrometer::ui::flamegraph
