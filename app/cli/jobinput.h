#pragma once

#include "core/analysis/job.h"

#include <optional>
#include <string>
#include <vector>

namespace pyrometer::cli {

// A distributed job from the command line: the rank traces and rank summaries PATHs name
// (folders, TensorBoard run folders, the files themselves, merged jobs), the traces summarised
// rank by rank with threads ranks at once (0: one per core), as summary::loadJob does. Progress goes to stderr while it is a
// terminal. On a missing path, a folder without traces or a file that does not load, prints one
// line naming it and returns nothing.
std::optional<analysis::JobFigures> loadJob(const std::vector<std::string> &paths, int threads);

} // namespace pyrometer::cli
