#include "ui/timeline/colors.h"

#include <array>
#include <utility>

namespace pyrometer::ui::timeline {

namespace {

struct CategoryColor {
    std::string_view category;
    std::string_view label;
    std::uint32_t color;
};

// Chosen to tell CPU work (blues), launches (greens), GPU work (oranges/reds) and waits
// (purple/grey) apart at a glance.
constexpr std::array<CategoryColor, 19> kCategories{{
    {"cpu_op", "CPU op", 0xff4e79a7},
    {"Operator", "CPU op", 0xff4e79a7},
    {"", "CPU op", 0xff4e79a7}, // legacy traces have no category
    {"user_annotation", "Annotation", 0xff76b7b2},
    {"gpu_user_annotation", "GPU annotation", 0xffb07aa1},
    {"python_function", "Python", 0xff9c9ede},
    {"cuda_runtime", "Runtime", 0xff59a14f},
    {"Runtime", "Runtime", 0xff59a14f},
    {"cuda_driver", "Driver", 0xff8cd17d},
    {"kernel", "Kernel", 0xfff28e2b},
    {"Kernel", "Kernel", 0xfff28e2b},
    {"gpu_memcpy", "Memcpy", 0xffe15759},
    {"Memcpy", "Memcpy", 0xffe15759},
    {"gpu_memset", "Memset", 0xffff9d9a},
    {"Memset", "Memset", 0xffff9d9a},
    {"cuda_sync", "Sync", 0xff7f3c8d},
    {"overhead", "Overhead", 0xffbab0ac},
    {"Trace", "Trace", 0xffd4a6c8},
    {"DataLoader", "DataLoader", 0xffedc948},
}};

constexpr std::array<std::uint32_t, 16> kPalette{
    0xff4e79a7, 0xfff28e2b, 0xffe15759, 0xff76b7b2, 0xff59a14f, 0xffedc948, 0xffb07aa1, 0xffff9da7,
    0xff9c755f, 0xffbab0ac, 0xff86bcb6, 0xfff1ce63, 0xffd37295, 0xff8cd17d, 0xff499894, 0xffa0cbe8,
};

// Colour indices: the categories' entries, then the palette's.
std::uint8_t nameIndex(std::string_view name)
{
    // FNV-1a: stable across runs and platforms, unlike std::hash.
    std::uint32_t hash = 2166136261u;
    for (const char c : name) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 16777619u;
    }
    return std::uint8_t(kCategories.size() + hash % kPalette.size());
}

std::uint8_t categoryIndex(std::string_view category)
{
    for (std::size_t i = 0; i < kCategories.size(); ++i) {
        if (kCategories[i].category == category)
            return std::uint8_t(i);
    }
    return nameIndex(category);
}

} // namespace

std::uint32_t indexedColor(std::uint8_t index)
{
    return index < kCategories.size() ? kCategories[index].color : kPalette[(index - kCategories.size()) % kPalette.size()];
}

std::uint32_t categoryColor(std::string_view category)
{
    return indexedColor(categoryIndex(category));
}

std::uint32_t nameColor(std::string_view name)
{
    return indexedColor(nameIndex(name));
}

std::uint8_t eventColorIndex(const trace::Trace &trace, const trace::Track &track, std::uint32_t event, ColorMode mode)
{
    if (mode == ColorMode::ByName)
        return nameIndex(trace.string(track.eventName[event]));
    return categoryIndex(trace.string(track.category[event]));
}

std::uint32_t eventColor(const trace::Trace &trace, const trace::Track &track, std::uint32_t event, ColorMode mode)
{
    return indexedColor(eventColorIndex(trace, track, event, mode));
}

std::uint32_t EventColors::operator()(const trace::Track &track, std::uint32_t event)
{
    const auto id = (m_mode == ColorMode::ByName ? track.eventName : track.category)[event];
    auto &entry = m_entries[id.value % m_entries.size()];
    if (entry.string != id.value)
        entry = {id.value, eventColor(m_trace, track, event, m_mode)};
    return entry.color;
}

std::vector<LegendEntry> categoryLegend()
{
    std::vector<LegendEntry> legend;
    for (const auto &entry : kCategories) {
        bool seen = false;
        for (const auto &l : legend)
            seen = seen || l.label == entry.label;
        if (!seen)
            legend.push_back({entry.label, entry.color});
    }
    return legend;
}

} // namespace pyrometer::ui::timeline
