#pragma once

#include "core/trace/trace.h"

#include <array>
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

// The same colours by number: every colour the two functions above give is one of a few
// dozen, so a byte names it (the timeline index keeps one per block of events and mode).
std::uint8_t eventColorIndex(const trace::Trace &trace, const trace::Track &track, std::uint32_t event, ColorMode mode);
std::uint32_t indexedColor(std::uint8_t index);

// eventColor, remembering the last colours by string: a zoomed-out frame colours a box per
// pixel column and row, mostly with a handful of categories or names, and working a colour
// out (a table walk or a hash of the name) costs more than the rest of such a box.
class EventColors {
public:
    EventColors(const trace::Trace &trace, ColorMode mode) : m_trace(trace), m_mode(mode) {}
    std::uint32_t operator()(const trace::Track &track, std::uint32_t event);

private:
    struct Entry {
        std::uint64_t string = ~std::uint64_t(0); // no string id: 32 bits
        std::uint32_t color = 0;
    };
    const trace::Trace &m_trace;
    ColorMode m_mode;
    std::array<Entry, 256> m_entries{}; // direct-mapped by string id
};

// The legend: each known category with its colour, in a fixed order.
struct LegendEntry {
    std::string_view label;
    std::uint32_t color;
};
std::vector<LegendEntry> categoryLegend();

} // namespace pyrometer::ui::timeline
