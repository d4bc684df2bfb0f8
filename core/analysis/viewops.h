#pragma once

#include <string_view>

namespace pyrometer::analysis {

// Ops that only make a new view of a tensor, or a tensor not yet written (aten::view, reshape,
// t, permute, expand, empty …): they move no data, so their minimum bytes are 0 and a chain of
// memory-bound ops runs on across them.
bool movesNoData(std::string_view name);

} // namespace pyrometer::analysis
