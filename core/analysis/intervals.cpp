#include "core/analysis/intervals.h"

#include <algorithm>

namespace pyrometer::analysis {

IntervalSet::IntervalSet(std::vector<Interval> intervals)
{
    std::sort(intervals.begin(), intervals.end());
    for (const auto &[a, b] : intervals) {
        if (b <= a)
            continue;
        if (!m_spans.empty() && a <= m_spans.back().second)
            m_spans.back().second = std::max(m_spans.back().second, b);
        else
            m_spans.push_back({a, b});
    }
}

std::int64_t IntervalSet::length() const
{
    std::int64_t total = 0;
    for (const auto &[a, b] : m_spans)
        total += b - a;
    return total;
}

std::int64_t IntervalSet::lengthIn(std::int64_t from, std::int64_t to) const
{
    // The first span that ends after from, then every span up to to.
    auto it = std::upper_bound(m_spans.begin(), m_spans.end(), from,
                               [](std::int64_t time, const Interval &span) { return time < span.second; });
    std::int64_t total = 0;
    for (; it != m_spans.end() && it->first < to; ++it)
        total += std::min(it->second, to) - std::max(it->first, from);
    return total;
}

IntervalSet IntervalSet::intersection(const IntervalSet &other) const
{
    IntervalSet result;
    auto a = m_spans.begin();
    auto b = other.m_spans.begin();
    while (a != m_spans.end() && b != other.m_spans.end()) {
        const auto from = std::max(a->first, b->first);
        const auto to = std::min(a->second, b->second);
        if (from < to)
            result.m_spans.push_back({from, to});
        if (a->second < b->second)
            ++a;
        else
            ++b;
    }
    return result;
}

IntervalSet IntervalSet::united(const IntervalSet &other) const
{
    std::vector<Interval> all = m_spans;
    all.insert(all.end(), other.m_spans.begin(), other.m_spans.end());
    return IntervalSet(std::move(all));
}

IntervalSet IntervalSet::clipped(std::int64_t from, std::int64_t to) const
{
    return intersection(IntervalSet({{from, to}}));
}

} // namespace pyrometer::analysis
