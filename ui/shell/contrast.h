#pragma once

#include <QColor>

namespace pyrometer::ui {

// WCAG 2 relative luminance (0 black .. 1 white) and contrast ratio (1 .. 21) of two opaque
// colours. AA asks 4.5:1 of text and 3:1 of large text and graphics.
double relativeLuminance(const QColor &color);
double contrastRatio(const QColor &a, const QColor &b);

inline constexpr double kTextContrast = 4.5;
inline constexpr double kGraphicContrast = 3.0;

// `color` made lighter or darker, keeping its hue, until it reaches `ratio` against
// `background` (or as far as white or black go); unchanged when it already does.
QColor readableOn(const QColor &color, const QColor &background, double ratio = kTextContrast);

} // namespace pyrometer::ui
