#pragma once

#include "core/analysis/job.h"

#include <optional>
#include <string>
#include <vector>

namespace pyrometer::cli {

// A distributed job from the command line: the rank traces and rank summaries PATHs name
// (folders, TensorBoard run folders, the files themselves, merged jobs), the traces summarised
// rank by rank with threads ranks at once (0: one per core), as summary::loadJob does. Progress goes to stderr while it is a
// terminal. On a missing path, a folder without traces or when no rank loads, prints one line
// naming it and returns nothing. A rank that does not load among others that do is named on
// stderr, one line each, and the job is the other ranks (its failedRanks): callers write their
// output and exit kBadInput.
std::optional<analysis::JobFigures> loadJob(const std::vector<std::string> &paths, int threads);

} // namespace pyrometer::cli
