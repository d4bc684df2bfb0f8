#include "ui/timeline/boxlayer.h"

#include <algorithm>
#include <cmath>

namespace pyrometer::ui::timeline {

void rasterizeFills(QImage &image, const std::vector<Fill> &fills)
{
    Q_ASSERT(image.format() == QImage::Format_RGB32 || image.format() == QImage::Format_ARGB32_Premultiplied);
    const double ratio = image.devicePixelRatio();
    // At a ratio of 1, as on most screens, no rounding: zoomed out there are tens of thousands
    // of fills, and four calls to lround each showed in a frame's time.
    const bool unit = ratio == 1.0;
    const auto device = [ratio, unit](int logical) { return unit ? logical : int(std::lround(logical * ratio)); };
    const int width = image.width();
    const int height = image.height();
    const auto stride = image.bytesPerLine() / qsizetype(sizeof(QRgb));
    auto *bits = reinterpret_cast<QRgb *>(image.bits());
    // RGB32 pixels must be opaque; opaque colours are the same in premultiplied ARGB32.
    const QRgb opaque = image.format() == QImage::Format_RGB32 ? 0xff000000u : 0u;
    for (const auto &fill : fills) {
        const int x0 = std::max(0, device(fill.left));
        const int x1 = std::min(width, device(std::max(fill.right, fill.left + 1)));
        const int y0 = std::max(0, device(fill.y));
        const int y1 = std::min(height, device(fill.y + fill.height));
        if (x0 >= x1 || y0 >= y1)
            continue;
        for (int y = y0; y < y1; ++y)
            std::fill(bits + y * stride + x0, bits + y * stride + x1, QRgb(fill.color) | opaque);
    }
}

} // namespace pyrometer::ui::timeline
