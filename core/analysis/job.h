#pragma once

#include "core/analysis/distributed.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

// A distributed job: the ranks' figures side by side, who is slow and who waits, and the
// collectives. Built from RankFigures only, so a job of 1,000 ranks never holds two traces.

// One row of the collectives table: a collective and message size in one process group, on one
// rank or summed over all of them.
struct CollectiveRow {
    std::string name;        // canonical
    std::int64_t bytes = -1; // per call; -1 unknown
    int groupSize = -1;      // as the args say, else the members listed, else the job's world size
    int rank = -1;           // -1 for the row over all ranks
    std::uint64_t calls = 0;
    std::int64_t timeNs = 0; // summed
    double algbwGBps = 0;    // bytes x calls / time, in GB/s (1e9); 0 when bytes unknown
    double busbwGBps = 0;    // algbw x busBandwidthFactor(name, groupSize)
    std::string group{};      // the process group's name ("" when the trace does not say)
    std::string groupDesc{};  // its description ("mesh_tp")
    std::string groupRanks{}; // its members as ranges ("0-3"); "" when the trace does not say
    bool operator==(const CollectiveRow &) const = default;
};

// Rows per (process group, name, bytes) of the calls given, sorted by time, largest first. Bus
// bandwidth uses each row's own group size.
std::vector<CollectiveRow> collectiveTable(const std::vector<CollectiveCall> &calls, int worldSize, int rank = -1);

// A rank whose computation per step is an outlier: above 1.10 x the median of the other ranks
// and, with three ranks or more, above that median by more than 3 robust deviations (1.4826 x
// the others' median absolute deviation).
struct Straggler {
    int rank = -1;
    double computePerStepUs = 0;
    double othersMedianUs = 0; // the median of the other ranks' compute per step
    double ratio = 0;          // computePerStepUs / othersMedianUs
    std::string reason;        // "compute 412.0 ms/step against a median of 301.5 ms of the other ranks (1.37x)"
    bool operator==(const Straggler &) const = default;
};

std::vector<Straggler> findStragglers(const std::vector<RankFigures> &ranks);

// A rank whose file could not be read: its file as given, the rank its name says (-1 if none)
// and the loader's message (which names the file).
struct FailedRank {
    int rank = -1;
    std::string file;
    std::string message;
    bool operator==(const FailedRank &) const = default;
};

struct JobFigures {
    std::vector<RankFigures> ranks; // sorted by rank (then file); the ranks that loaded
    int worldSize = -1;             // from distributedInfo; -1 when no rank says
    std::string backend;

    std::vector<Straggler> stragglers;
    // Per ranks[i]: time spent in collectives waiting for the last rank to arrive (the latest
    // start of the same call over all ranks, after alignment, minus this rank's start), summed.
    // Calls are matched per process group among its members (collectivematch.h).
    std::vector<std::int64_t> waitNs;
    // The same per step: stepWaitNs[i][s] for ranks[i].steps[s] (RankFigures::stepOf).
    std::vector<std::vector<std::int64_t>> stepWaitNs;
    // Per ranks[i]: added to that rank's times to put every rank on the anchor's clock.
    std::vector<std::int64_t> clockOffsetNs;
    // The instant the clocks were aligned on, said in words ("the end of a collective every rank
    // ran: all_reduce of 100 MiB #1; 40 of 42 calls ... end together under it"), or why none
    // was found (then offsets are 0). Of the first 32 calls every rank ran, the one under which
    // most calls end together on every rank is used.
    std::string anchor;

    std::vector<CollectiveRow> collectives;       // over all ranks
    std::vector<CollectiveRow> collectivesByRank; // per rank, by rank then time

    // Files that could not be read (the job is the other ranks), duplicate rank numbers, missing
    // ranks, ranks of other jobs, files without a rank: said, not guessed.
    std::vector<std::string> problems;
    std::vector<FailedRank> failedRanks;
    // How the figures were made where it limits them ("collectives carry no process group:
    // matched by name and size only").
    std::vector<std::string> notes;
    bool operator==(const JobFigures &) const = default;
};

// Combines ranks' figures: sorting, identity checks, clock alignment, waits, stragglers and
// the collectives tables. Ranks with a loadError go to failedRanks and problems, not ranks.
JobFigures combineRanks(std::vector<RankFigures> ranks);

// The files that make a job: a folder (recursively, as a TensorBoard log directory) gives its
// trace files and its rank summaries (*.summary.json); files are taken as they are. Error naming the path when one is
// missing or a folder holds no traces, or when fewer than one file is found.
Result<std::vector<std::filesystem::path>> jobFiles(const std::vector<std::filesystem::path> &paths);

// Rank summaries (pyrometer-cli summarize) are named NAME.summary.json.
inline constexpr std::string_view kSummarySuffix = ".summary.json";
bool isSummaryFileName(std::string_view fileName);

// A rank number from a file name: "rank-3.json.gz", "rank_3", "rank3.pt.trace.json" -> 3; -1
// when the name has none. Used when a trace has no distributedInfo.
int rankFromFileName(const std::filesystem::path &file);

// Whether traces are the ranks of one job: two or more, each with a rank (from the
// distributedInfo in its first bytes, else from its name), no rank twice, and one world size
// among those that say theirs. Reads only the head of each file.
bool ranksOfOneJob(const std::vector<std::filesystem::path> &traces);

// What summariseRanks tells a hook about its loads (tests watch the memory bound with it).
struct RankLoadEvent {
    enum class Kind { Started, Finished, WaitingForMemory };
    Kind kind = Kind::Started;
    std::size_t file = 0;            // index into the files given (the next one when waiting)
    std::uint64_t bytesInFlight = 0; // estimated bytes of the loads under way, this one included
};

struct JobOptions {
    int threads = 0; // ranks loaded at once: 0 one per core
    // Estimated bytes of trace loaded at once (jobLoadBytes of each file under way); a rank that
    // would go above it waits for others to finish, unless nothing else is loading. 0: half of
    // the machine's physical memory.
    std::uint64_t memoryBudgetBytes = 0;
    // Called on the loading threads, outside any lock; may block.
    std::function<void(const RankLoadEvent &)> onLoadEvent{};
};

// What loading a rank's trace is reckoned to take: its JSON's size (a plain file's size, a gzip
// file's inflated size from its trailer, at least the file's size). The model built from it is
// smaller than its JSON (interned names, columns of numbers), so this bounds it from above.
std::uint64_t jobLoadBytes(const std::filesystem::path &file);

// Loads the files one rank per thread at a time within the memory budget, keeps each rank's
// figures (file set to the path as given) and drops its trace. A file that cannot be loaded
// (not a trace, truncated, out of memory, anything thrown while it loads) gives figures with
// only file, rank (from its name) and loadError set, and the other ranks load on; when every
// file fails, an Error with the first file's message. Progress counts ranks; a stop ends it with
// an Error ending in "cancelled".
Result<std::vector<RankFigures>> summariseRanks(const std::vector<std::filesystem::path> &files,
                                                const JobOptions &options, ProgressReporter &progress,
                                                const StopToken &stop);

// summariseRanks, then combineRanks.
Result<JobFigures> summariseJob(const std::vector<std::filesystem::path> &files, const JobOptions &options,
                                ProgressReporter &progress, const StopToken &stop);
Result<JobFigures> summariseJob(const std::vector<std::filesystem::path> &files, const JobOptions &options = {});

} // namespace pyrometer::analysis
