#pragma once

#include "core/analysis/ranksummary.h"
#include "core/util/result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::summary {

// Rank summaries on disk: one rank (pyrometer-cli summarize) or the merge of many (pyrometer-cli
// merge), as JSON. Both hold a list of ranks, so a merged file merges again like its parts.
//   {"kind": "pyrometer-rank-summary", "format": 1, "rank": {...}}
//   {"kind": "pyrometer-job-summary", "format": 1, "ranks": [{...}, ...]}
// Times are integer nanoseconds and the figures' fractions are written to round-trip, so a
// summary read back equals the one written.

inline constexpr int kFormat = 1;

// The ranks of one or more summaries. Merging is associative and commutative: the ranks of all
// parts, sorted by rank, then file, with exact duplicates (the same summary merged twice) once.
struct JobSummary {
    std::vector<analysis::RankSummary> ranks;
    bool operator==(const JobSummary &) const = default;
};

JobSummary merge(std::vector<JobSummary> parts);

std::string rankSummaryJson(const analysis::RankSummary &rank);
std::string jobSummaryJson(const JobSummary &job);

// Written whole or not at all (a temporary file renamed over the target).
Result<std::filesystem::path> writeRankSummary(const std::filesystem::path &file, const analysis::RankSummary &rank);
Result<std::filesystem::path> writeJobSummary(const std::filesystem::path &file, const JobSummary &job);

// Reads either kind. Errors name the file: not JSON, not a Pyrometer summary, a format newer
// than this build reads, a field of the wrong type.
Result<JobSummary> readSummary(const std::filesystem::path &file);

// Whether a file is a summary rather than a trace: named *.summary.json, or its first bytes
// say so (a merged job may be named anything).
bool isSummaryFile(const std::filesystem::path &file);

} // namespace pyrometer::summary
