#pragma once

#include "core/analysis/flamegraph.h"

#include <cstdint>

namespace pyrometer::ui::flamegraph {

enum class FlameColorMode { ByCategory, ByName, ByChange };

// 0xAARRGGBB. By category and by name as the timeline colours events, so an operator looks the
// same on both pages; by change (diff graphs): red for slower, blue for faster, deeper the
// larger the relative change, grey when unchanged or only one run has the frame.
std::uint32_t frameColor(const analysis::FlameGraph &graph, std::uint32_t node, FlameColorMode mode);
std::uint32_t changeColor(double heat); // heat as analysis::diffHeat returns it, -1..1

constexpr std::uint32_t kMergedColor = 0xffc8c8c8;  // several frames narrower than a pixel
constexpr std::uint32_t kDimmedColor = 0xffe6e6e6;  // frames a search did not match
constexpr std::uint32_t kNeutralColor = 0xffb4b4b4; // the root, threads, unchanged frames

} // namespace pyrometer::ui::flamegraph
