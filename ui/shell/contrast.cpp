#include "ui/shell/contrast.h"

#include <algorithm>
#include <cmath>

namespace pyrometer::ui {

namespace {

double linear(double channel)
{
    return channel <= 0.04045 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
}

// `color` mixed with `toward` by t (0..1).
QColor mix(const QColor &color, const QColor &toward, double t)
{
    const auto channel = [t](int from, int to) { return int(std::lround(from + (to - from) * t)); };
    return QColor(channel(color.red(), toward.red()), channel(color.green(), toward.green()),
                  channel(color.blue(), toward.blue()), color.alpha());
}

} // namespace

double relativeLuminance(const QColor &color)
{
    const QColor c = color.toRgb();
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = relativeLuminance(a);
    const double lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor readableOn(const QColor &color, const QColor &background, double ratio)
{
    if (contrastRatio(color, background) >= ratio)
        return color;
    // Away from the background: toward white on a dark one, toward black on a light one.
    // Contrast grows with the mix, so a bisection finds the least change that is enough.
    const QColor target = relativeLuminance(background) < 0.18 ? QColor(Qt::white) : QColor(Qt::black);
    double low = 0, high = 1;
    for (int i = 0; i < 20; ++i) {
        const double t = (low + high) / 2;
        (contrastRatio(mix(color, target, t), background) >= ratio ? high : low) = t;
    }
    return mix(color, target, high);
}

} // namespace pyrometer::ui
