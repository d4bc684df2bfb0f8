#pragma once

#include "core/analysis/job.h"
#include "core/analysis/ranksummary.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::summary {

// A job from what the user has of it: rank traces, rank summaries, merged job summaries, or a
// mix (the files analysis::jobFiles lists). Summaries are read; traces are summarised here, one
// rank per thread; then both go through combineRanks, so a job of summaries made on a cluster
// and the same job summarised here give the same figures. A trace that a summary given with it
// was made from (the same path, size and CRC-32) is not summarised twice. Errors name the file.
Result<analysis::JobFigures> loadJob(const std::vector<std::filesystem::path> &files,
                                     const analysis::JobOptions &options, ProgressReporter &progress,
                                     const StopToken &stop);

// What pyrometer-cli summarize writes of one rank trace: the trace loaded and indexed, its
// summary (figures.file set to the path as given) with the file's size and CRC-32. Errors name
// the file.
Result<analysis::RankSummary> summariseTraceFile(const std::filesystem::path &file, const StopToken &stop = {});

// The same, with a summary read where its path is a summary and a trace summarised otherwise,
// returning each rank's figures before they are combined (those read from a summary carry the
// size and CRC-32 of the file it was made from). A trace given beside its own summary that is
// no longer that file is summarised again, its summary left out, and a note says so.
Result<std::vector<analysis::RankFigures>> loadRanks(const std::vector<std::filesystem::path> &files,
                                                     const analysis::JobOptions &options, ProgressReporter &progress,
                                                     const StopToken &stop, std::vector<std::string> *notes = nullptr);

} // namespace pyrometer::summary
