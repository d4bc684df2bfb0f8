#include "core/model/knee.h"

#include <algorithm>
#include <cmath>

namespace pyrometer::model {

std::optional<Knee> findKnee(std::vector<ThroughputPoint> points, double threshold)
{
    std::erase_if(points,
                  [](const ThroughputPoint &point) { return point.batch <= 0 || !(point.throughputPerSecond > 0); });
    std::stable_sort(points.begin(), points.end(), [](const auto &a, const auto &b) { return a.batch < b.batch; });
    points.erase(
        std::unique(points.begin(), points.end(), [](const auto &a, const auto &b) { return a.batch == b.batch; }),
        points.end());
    if (points.size() < 2)
        return std::nullopt;
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
        double best = -1; // the largest gain per doubling to any larger batch
        for (std::size_t j = i + 1; j < points.size(); ++j) {
            const double doublings = std::log2(double(points[j].batch) / double(points[i].batch));
            const double ratio = points[j].throughputPerSecond / points[i].throughputPerSecond;
            best = std::max(best, std::pow(ratio, 1.0 / doublings) - 1.0);
        }
        if (best < threshold)
            return Knee{points[i].batch, points[i].throughputPerSecond, best};
    }
    return std::nullopt;
}

} // namespace pyrometer::model
