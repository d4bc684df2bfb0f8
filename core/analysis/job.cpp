#include "core/analysis/job.h"

#include "core/trace/loader.h"
#include "core/trace/tracesource.h"
#include "core/util/format.h"
#include "core/util/heap.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace pyrometer::analysis {

namespace fs = std::filesystem;

namespace {

double median(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    const auto mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + mid, values.end());
    if (values.size() % 2 == 1)
        return values[mid];
    const auto upper = values[mid];
    const auto lower = *std::max_element(values.begin(), values.begin() + mid);
    return (lower + upper) / 2.0;
}

std::string fileName(const std::string &path)
{
    return fs::path(path).filename().string();
}

// "0-3, 7, 9-127": numbers as ranges, at most `limit` of them then "...".
std::string rangesText(const std::vector<int> &numbers, std::size_t limit = 8)
{
    std::string text;
    std::size_t shown = 0;
    for (std::size_t i = 0; i < numbers.size();) {
        auto j = i;
        while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1)
            ++j;
        if (shown == limit) {
            text += ", ...";
            break;
        }
        if (!text.empty())
            text += ", ";
        text += std::to_string(numbers[i]);
        if (j > i)
            text += "-" + std::to_string(numbers[j]);
        ++shown;
        i = j + 1;
    }
    return text;
}

template <typename T, typename Key> T mostCommon(const std::vector<RankFigures> &ranks, Key key, T none)
{
    std::map<T, int> counts;
    for (const auto &r : ranks) {
        const T value = key(r);
        if (value != none)
            ++counts[value];
    }
    T best = none;
    int bestCount = 0;
    for (const auto &[value, count] : counts) {
        if (count > bestCount) {
            best = value;
            bestCount = count;
        }
    }
    return best;
}

void checkIdentity(JobFigures &job)
{
    job.worldSize = mostCommon(
        job.ranks, [](const RankFigures &r) { return r.worldSize; }, -1);
    job.backend = mostCommon(
        job.ranks, [](const RankFigures &r) { return r.backend; }, std::string());
    std::map<int, std::vector<std::string>> files;
    for (const auto &r : job.ranks) {
        if (r.rank < 0) {
            job.problems.push_back(fileName(r.file) + ": no rank number (no distributedInfo, none in the file name)");
            continue;
        }
        files[r.rank].push_back(fileName(r.file));
        if (r.worldSize > 0 && job.worldSize > 0 && r.worldSize != job.worldSize)
            job.problems.push_back(fileName(r.file) + ": world size " + std::to_string(r.worldSize) + ", the others " +
                                   std::to_string(job.worldSize) + " (a rank of another job?)");
        else if (!r.backend.empty() && r.backend != job.backend)
            job.problems.push_back(fileName(r.file) + ": backend " + r.backend + ", the others " + job.backend +
                                   " (a rank of another job?)");
        if (job.worldSize > 0 && r.rank >= job.worldSize)
            job.problems.push_back(fileName(r.file) + ": rank " + std::to_string(r.rank) +
                                   " is not below the world size " + std::to_string(job.worldSize));
    }
    for (const auto &[rank, names] : files) {
        if (names.size() < 2)
            continue;
        std::string list;
        for (const auto &name : names)
            list += (list.empty() ? "" : ", ") + name;
        job.problems.push_back("rank " + std::to_string(rank) + " appears in " + std::to_string(names.size()) +
                               " files: " + list);
    }
    if (job.worldSize > 0) {
        std::vector<int> missing;
        for (int rank = 0; rank < job.worldSize; ++rank) {
            if (!files.count(rank))
                missing.push_back(rank);
        }
        if (!missing.empty())
            job.problems.push_back(std::to_string(job.worldSize - static_cast<int>(missing.size())) + " of " +
                                   std::to_string(job.worldSize) + " ranks present; missing: " + rangesText(missing));
    }
}

// Calls of one job are matched across ranks by collective, message size and order: the k-th
// all_reduce of 100 MB on one rank is the k-th on every other. (The size keeps traces that start
// at different points of the schedule from pairing different calls; an all_to_all with uneven
// splits has a size per rank and is not matched.)
using CallKey = std::pair<std::string, std::int64_t>;
using CallsByKey = std::map<CallKey, std::vector<const CollectiveCall *>>;

CallKey keyOf(const CollectiveCall &call)
{
    return {call.name, call.bytes};
}

CallsByKey callsByKey(const RankFigures &rank)
{
    CallsByKey byKey;
    for (const auto &call : rank.collectives)
        byKey[keyOf(call)].push_back(&call);
    return byKey;
}

// A call that two ranks or more ran: its k-th occurrence of a key, per rank (null where absent).
struct MatchedCall {
    std::vector<const CollectiveCall *> perRank;
};

std::vector<MatchedCall> matchCalls(const std::vector<CallsByKey> &byKey)
{
    std::set<CallKey> keys;
    for (const auto &calls : byKey)
        for (const auto &[key, list] : calls)
            keys.insert(key);
    std::vector<MatchedCall> matched;
    for (const auto &key : keys) {
        for (std::size_t k = 0;; ++k) {
            MatchedCall call{std::vector<const CollectiveCall *>(byKey.size(), nullptr)};
            int present = 0;
            for (std::size_t r = 0; r < byKey.size(); ++r) {
                const auto it = byKey[r].find(key);
                if (it != byKey[r].end() && it->second.size() > k) {
                    call.perRank[r] = it->second[k];
                    ++present;
                }
            }
            if (present == 0)
                break;
            if (present >= 2)
                matched.push_back(std::move(call));
        }
    }
    return matched;
}

// Whether a matched call ends at one instant on every rank once clocks are shifted by offsets
// (collectives finish together): within 1 ms plus 2% of its shortest duration.
bool endsTogether(const MatchedCall &call, const std::vector<std::int64_t> &offsets)
{
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    std::int64_t last = std::numeric_limits<std::int64_t>::min();
    std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
    for (std::size_t r = 0; r < call.perRank.size(); ++r) {
        if (const auto *c = call.perRank[r]) {
            first = std::min(first, c->endNs + offsets[r]);
            last = std::max(last, c->endNs + offsets[r]);
            shortest = std::min(shortest, c->endNs - c->startNs);
        }
    }
    return last - first <= 1'000'000 + shortest / 50;
}

void alignAndWait(JobFigures &job)
{
    const auto n = job.ranks.size();
    job.clockOffsetNs.assign(n, 0);
    job.waitNs.assign(n, 0);
    if (n < 2) {
        job.anchor = "one rank: nothing to align";
        return;
    }
    std::vector<CallsByKey> byKey;
    for (const auto &rank : job.ranks)
        byKey.push_back(callsByKey(rank));
    const auto matched = matchCalls(byKey);

    // Candidate anchors: calls of the first rank that every rank ran; collectives end together,
    // so such a call's end is one instant on every clock. Of the first few, the one under which
    // most matched calls end together wins (a trace that starts later in the schedule would
    // otherwise pair different calls); the earliest on a tie.
    constexpr int kCandidates = 32;
    std::map<CallKey, std::size_t> seen;
    std::vector<std::int64_t> offsets(n);
    std::size_t bestScore = 0;
    int candidates = 0;
    for (const auto &call : job.ranks.front().collectives) {
        const auto key = keyOf(call);
        const auto k = seen[key]++;
        const bool everywhere = std::all_of(byKey.begin(), byKey.end(), [&](const CallsByKey &calls) {
            const auto it = calls.find(key);
            return it != calls.end() && it->second.size() > k;
        });
        if (!everywhere)
            continue;
        for (std::size_t r = 0; r < n; ++r)
            offsets[r] = call.endNs - byKey[r].at(key)[k]->endNs;
        const auto score = static_cast<std::size_t>(std::count_if(
            matched.begin(), matched.end(), [&](const MatchedCall &m) { return endsTogether(m, offsets); }));
        if (score > bestScore) {
            bestScore = score;
            job.clockOffsetNs = offsets;
            job.anchor =
                "the end of a collective every rank ran: " + call.name +
                (call.bytes >= 0 ? " of " + formatBytes(static_cast<std::uint64_t>(call.bytes)) : std::string()) +
                " #" + std::to_string(k + 1);
        }
        if (++candidates == kCandidates)
            break;
    }
    if (bestScore == 0) {
        job.anchor = "none: no collective ran on every rank, so clocks are not aligned and waits are not measured";
        return;
    }
    job.anchor += "; " + std::to_string(bestScore) + " of " + std::to_string(matched.size()) +
                  " calls that several ranks ran end together under it";

    // Waits: for every matched call that ends together, the time from each rank's arrival to
    // the last rank's. Calls that do not end together are not the same call: left out.
    for (const auto &call : matched) {
        if (!endsTogether(call, job.clockOffsetNs))
            continue;
        std::int64_t latest = std::numeric_limits<std::int64_t>::min();
        for (std::size_t r = 0; r < n; ++r) {
            if (const auto *c = call.perRank[r])
                latest = std::max(latest, c->startNs + job.clockOffsetNs[r]);
        }
        for (std::size_t r = 0; r < n; ++r) {
            if (const auto *c = call.perRank[r])
                job.waitNs[r] += latest - (c->startNs + job.clockOffsetNs[r]);
        }
    }
}

std::string formatRatio(double ratio)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", ratio);
    return text;
}

// Rank summaries in a folder and the folders below it, by name, in path order.
std::vector<fs::path> listSummaryFiles(const fs::path &folder)
{
    std::vector<fs::path> found;
    std::error_code error;
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, error);
    for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        std::error_code typeError;
        if (it->is_regular_file(typeError) && isSummaryFileName(it->path().filename().string()))
            found.push_back(it->path());
    }
    std::sort(found.begin(), found.end());
    return found;
}

} // namespace

std::vector<CollectiveRow> collectiveTable(const std::vector<CollectiveCall> &calls, int worldSize, int rank)
{
    std::map<std::pair<std::string, std::int64_t>, CollectiveRow> rows;
    for (const auto &call : calls) {
        auto &row = rows[{call.name, call.bytes}];
        if (row.calls == 0) {
            row.name = call.name;
            row.bytes = call.bytes;
            row.rank = rank;
        }
        if (row.groupSize <= 0 && call.groupSize > 0)
            row.groupSize = call.groupSize;
        ++row.calls;
        row.timeNs += call.endNs - call.startNs;
    }
    std::vector<CollectiveRow> table;
    for (auto &[key, row] : rows) {
        if (row.groupSize <= 0)
            row.groupSize = worldSize;
        if (row.bytes > 0 && row.timeNs > 0) {
            // bytes per nanosecond is GB/s (1e9 bytes a second).
            row.algbwGBps =
                static_cast<double>(row.bytes) * static_cast<double>(row.calls) / static_cast<double>(row.timeNs);
            row.busbwGBps = row.algbwGBps * busBandwidthFactor(row.name, row.groupSize);
        }
        table.push_back(std::move(row));
    }
    std::stable_sort(table.begin(), table.end(),
                     [](const CollectiveRow &a, const CollectiveRow &b) { return a.timeNs > b.timeNs; });
    return table;
}

std::vector<Straggler> findStragglers(const std::vector<RankFigures> &ranks)
{
    std::vector<Straggler> stragglers;
    if (ranks.size() < 2)
        return stragglers;
    std::vector<double> values;
    for (const auto &r : ranks)
        values.push_back(r.computePerStepUs());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        std::vector<double> others = values;
        others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
        const auto othersMedian = median(others);
        if (othersMedian <= 0)
            continue;
        const auto ratio = values[i] / othersMedian;
        if (ratio <= 1.10)
            continue;
        if (others.size() >= 2) {
            std::vector<double> deviations;
            for (const auto v : others)
                deviations.push_back(std::abs(v - othersMedian));
            if (values[i] - othersMedian <= 3.0 * 1.4826 * median(deviations))
                continue;
        }
        Straggler s;
        s.rank = ranks[i].rank;
        s.computePerStepUs = values[i];
        s.othersMedianUs = othersMedian;
        s.ratio = ratio;
        const auto unit = ranks[i].steps.empty() ? std::string() : "/step";
        s.reason = "compute " + formatDuration(static_cast<std::int64_t>(values[i] * 1000)) + unit +
                   " against a median of " + formatDuration(static_cast<std::int64_t>(othersMedian * 1000)) + unit +
                   " of the other ranks (" + formatRatio(ratio) + ")";
        stragglers.push_back(std::move(s));
    }
    return stragglers;
}

JobFigures combineRanks(std::vector<RankFigures> ranks)
{
    JobFigures job;
    for (auto &r : ranks) {
        if (r.rank < 0)
            r.rank = rankFromFileName(r.file);
    }
    std::stable_sort(ranks.begin(), ranks.end(), [](const RankFigures &a, const RankFigures &b) {
        return std::tie(a.rank, a.file) < std::tie(b.rank, b.file);
    });
    job.ranks = std::move(ranks);
    checkIdentity(job);
    alignAndWait(job);
    job.stragglers = findStragglers(job.ranks);
    std::vector<CollectiveCall> all;
    for (const auto &r : job.ranks) {
        all.insert(all.end(), r.collectives.begin(), r.collectives.end());
        auto rows = collectiveTable(r.collectives, job.worldSize, r.rank);
        job.collectivesByRank.insert(job.collectivesByRank.end(), rows.begin(), rows.end());
    }
    job.collectives = collectiveTable(all, job.worldSize, -1);
    return job;
}

bool isSummaryFileName(std::string_view fileName)
{
    return fileName.size() > kSummarySuffix.size() && fileName.ends_with(kSummarySuffix);
}

int rankFromFileName(const fs::path &file)
{
    std::string name = file.filename().string();
    for (auto &c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (auto at = name.find("rank"); at != std::string::npos; at = name.find("rank", at + 1)) {
        auto digits = at + 4;
        if (digits < name.size() && (name[digits] == '-' || name[digits] == '_'))
            ++digits;
        auto end = digits;
        while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end])) && end - digits < 9)
            ++end;
        if (end > digits)
            return std::stoi(name.substr(digits, end - digits));
    }
    return -1;
}

Result<std::vector<fs::path>> jobFiles(const std::vector<fs::path> &paths)
{
    std::vector<fs::path> files;
    std::set<fs::path> seen;
    auto add = [&](const fs::path &file) {
        if (seen.insert(fs::absolute(file).lexically_normal()).second)
            files.push_back(file);
    };
    for (const auto &path : paths) {
        std::error_code error;
        const auto status = fs::status(path, error);
        if (error || !fs::exists(status))
            return Error{path.string() + ": no such file or folder"};
        if (fs::is_directory(status)) {
            auto found = trace::listTraceFiles(path);
            const auto summaries = listSummaryFiles(path);
            found.insert(found.end(), summaries.begin(), summaries.end());
            if (found.empty())
                return Error{trace::noTracesMessage(path.string())};
            for (const auto &file : found)
                add(file);
        } else {
            add(path);
        }
    }
    if (files.empty())
        return Error{"no rank traces given"};
    return files;
}

Result<std::vector<RankFigures>> summariseRanks(const std::vector<fs::path> &files, const JobOptions &options,
                                                ProgressReporter &progress, const StopToken &stop)
{
    if (files.empty())
        return std::vector<RankFigures>();
    const auto cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const auto threads = std::clamp(options.threads > 0 ? options.threads : cores, 1, static_cast<int>(files.size()));
    std::vector<RankFigures> ranks(files.size());
    std::atomic<std::size_t> next{0};
    std::mutex mutex; // guards the first error, the progress and done
    std::optional<Error> failure;
    std::size_t done = 0;
    auto work = [&] {
        for (;;) {
            const auto i = next.fetch_add(1);
            if (i >= files.size() || stop.stopRequested())
                return;
            {
                std::lock_guard lock(mutex);
                if (failure)
                    return;
            }
            trace::LoadOptions load;
            load.parserThreads = 0; // one rank per thread: ranks are the parallel part
            ProgressReporter quiet;
            auto loaded = trace::loadTrace(files[i], load, quiet, stop);
            if (!loaded) {
                std::lock_guard lock(mutex);
                if (!failure)
                    failure = loaded.error();
                return;
            }
            auto trace = std::move(loaded).value();
            auto index = buildTraceIndex(*trace, &stop);
            if (!index)
                return;
            ranks[i] = rankFigures(*index, &stop);
            ranks[i].file = files[i].string();
            // Only the figures stay: the trace and its index go back to the system before the
            // next rank loads, so a job holds about one rank per thread.
            index.reset();
            trace.reset();
            releaseFreedMemory();
            std::lock_guard lock(mutex);
            progress.report(++done, files.size());
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (auto &thread : pool)
        thread.join();
    if (stop.stopRequested())
        return Error{"reading the job's ranks was cancelled"};
    if (failure)
        return *failure;
    progress.finish();
    return ranks;
}

Result<JobFigures> summariseJob(const std::vector<fs::path> &files, const JobOptions &options,
                                ProgressReporter &progress, const StopToken &stop)
{
    auto ranks = summariseRanks(files, options, progress, stop);
    if (!ranks.ok())
        return ranks.error();
    return combineRanks(std::move(ranks).value());
}

Result<JobFigures> summariseJob(const std::vector<fs::path> &files, const JobOptions &options)
{
    ProgressReporter progress;
    const StopToken stop;
    return summariseJob(files, options, progress, stop);
}

} // namespace pyrometer::analysis
