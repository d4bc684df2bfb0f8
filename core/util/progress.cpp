#include "core/util/progress.h"

#include <algorithm>

namespace pyrometer {

ProgressReporter::ProgressReporter(Sink sink, std::chrono::milliseconds minInterval)
    : m_sink(std::move(sink)), m_minInterval(minInterval)
{
}

void ProgressReporter::report(std::uint64_t done, std::uint64_t total)
{
    if (total == 0)
        return;
    const auto clamped = std::min(done, total);
    // Divide first where the product could overflow 64 bits (files above 18 PB, in theory).
    const auto permille = total > (UINT64_MAX / kScale) ? clamped / (total / kScale)
                                                         : clamped * kScale / total;
    reportPermille(static_cast<int>(std::min<std::uint64_t>(permille, kScale)));
}

void ProgressReporter::reportPermille(int permille)
{
    permille = std::clamp(permille, 0, kScale);
    if (permille == m_last || !m_sink)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (m_last >= 0 && permille != kScale && now - m_lastTime < m_minInterval)
        return;
    m_last = permille;
    m_lastTime = now;
    m_sink(permille);
}

void ProgressReporter::finish()
{
    if (m_last == kScale || !m_sink)
        return;
    m_last = kScale;
    m_lastTime = std::chrono::steady_clock::now();
    m_sink(kScale);
}

} // namespace pyrometer
