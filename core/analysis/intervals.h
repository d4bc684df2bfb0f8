#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace pyrometer::analysis {

using Interval = std::pair<std::int64_t, std::int64_t>; // [first, second)

// A union of intervals: sorted, disjoint, non-empty spans. Busy time over many streams is the
// length of such a union; overlaps of two kinds of work are the length of an intersection.
class IntervalSet {
public:
    IntervalSet() = default;
    // Merges any intervals (any order, overlapping or empty ones allowed).
    explicit IntervalSet(std::vector<Interval> intervals);

    const std::vector<Interval> &spans() const { return m_spans; }
    bool empty() const { return m_spans.empty(); }
    std::int64_t length() const;
    // Length of the part inside [from, to).
    std::int64_t lengthIn(std::int64_t from, std::int64_t to) const;
    IntervalSet intersection(const IntervalSet &other) const;
    IntervalSet united(const IntervalSet &other) const;
    IntervalSet clipped(std::int64_t from, std::int64_t to) const;

private:
    std::vector<Interval> m_spans;
};

} // namespace pyrometer::analysis
