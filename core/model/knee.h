#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace pyrometer::model {

// One measured point of a throughput curve.
struct ThroughputPoint {
    std::int64_t batch = 0;
    double throughputPerSecond = 0;
    bool operator==(const ThroughputPoint &) const = default;
};

// Where a batch-size sweep stops paying: the smallest batch from which no larger batch
// gains `threshold` (0.10: 10%) or more throughput per doubling of the batch.
struct Knee {
    std::int64_t batch = 0;
    double throughputPerSecond = 0;
    // Throughput gained per doubling from this batch to the best larger one (0.04: 4%;
    // negative when every larger batch is slower).
    double gainPerDoubling = 0;
    bool operator==(const Knee &) const = default;
};

// The knee of points (any order; batches > 0, duplicates keep the first). Judging each
// batch against every larger one, not only its neighbour, keeps a noisy dip from passing
// for a knee. None when throughput still gains at the largest batch, or with fewer than
// two points.
std::optional<Knee> findKnee(std::vector<ThroughputPoint> points, double threshold = 0.10);

} // namespace pyrometer::model
