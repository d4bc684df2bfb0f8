#pragma once

#include "core/analysis/steps.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

namespace pyrometer::analysis {

// The step categories' colours as 0xRRGGBB, by StepCategory: the one palette of the app's step
// chart and the report's, so a category has the same colour wherever it is drawn.
inline constexpr std::array<std::uint32_t, kStepCategoryCount> kStepCategoryColors{
    0x2e7d32, // kernel: green, the GPU computes
    0x1565c0, // memcpy: blue
    0x64b5f6, // memset: light blue
    0xf9a825, // runtime: amber, launches
    0xc62828, // DataLoader: red, waiting for data
    0x8e24aa, // CPU exec: purple
    0x9e9e9e, // other: grey
};

constexpr std::uint32_t stepCategoryColor(StepCategory category)
{
    return kStepCategoryColors[static_cast<std::size_t>(category)];
}

// "#2e7d32", as SVG and HTML write it.
inline std::string stepCategoryColorHex(StepCategory category)
{
    char text[8];
    std::snprintf(text, sizeof text, "#%06x", static_cast<unsigned>(stepCategoryColor(category)));
    return text;
}

} // namespace pyrometer::analysis
