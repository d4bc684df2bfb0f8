#pragma once

#include "core/trace/trace.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace pyrometer::ui::timeline {

enum class ColorMode { ByCategory, ByName };

// 0xAARRGGBB. Stable across runs: by category a fixed table for the torch.profiler categories
// (2021 and current names map to the same colour), by name a hash of the name into a
// palette, so the same op has the same colour in every trace.
std::uint32_t categoryColor(std::string_view category);
std::uint32_t nameColor(std::string_view name);
std::uint32_t eventColor(const trace::Trace &trace, const trace::Track &track, std::uint32_t event, ColorMode mode);

// The legend: each known category with its colour, in a fixed order.
struct LegendEntry {
    std::string_view label;
    std::uint32_t color;
};
std::vector<LegendEntry> categoryLegend();

} // namespace pyrometer::ui::timeline
