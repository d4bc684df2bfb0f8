#include "core/analysis/job.h"

#include "core/analysis/collectivematch.h"

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

namespace {

// Says how collectives were matched when the traces do not name their process groups.
void noteGroups(JobFigures &job)
{
    std::size_t calls = 0;
    std::size_t grouped = 0;
    for (const auto &rank : job.ranks) {
        calls += rank.collectives.size();
        grouped += static_cast<std::size_t>(std::count_if(rank.collectives.begin(), rank.collectives.end(),
                                                          [](const CollectiveCall &c) { return c.hasGroup(); }));
    }
    if (job.ranks.size() < 2 || calls == grouped)
        return;
    if (grouped == 0)
        job.notes.push_back("collectives carry no process group: matched by name and size only, as if every rank "
                            "were in one group (torch 2.x writes the groups)");
    else
        job.notes.push_back(std::to_string(calls - grouped) + " of " + std::to_string(calls) +
                            " collective calls carry no process group: those are matched by name and size only");
}

} // namespace

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
    for (auto &r : ranks) {
        if (r.loadError.empty()) {
            job.ranks.push_back(std::move(r));
            continue;
        }
        job.problems.push_back("not loaded: " + r.loadError);
        job.failedRanks.push_back({r.rank, r.file, r.loadError});
    }
    checkIdentity(job);
    alignAndWait(job);
    noteGroups(job);
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

bool ranksOfOneJob(const std::vector<fs::path> &traces)
{
    if (traces.size() < 2)
        return false;
    std::set<int> ranks;
    int worldSize = -1;
    for (const auto &file : traces) {
        trace::DistributedInfo info;
        const bool peeked = trace::peekDistributedInfo(file, info);
        const int rank = peeked && info.present() ? info.rank : rankFromFileName(file);
        if (rank < 0 || !ranks.insert(rank).second)
            return false;
        if (peeked && info.worldSize > 0) {
            if ((worldSize >= 0 && info.worldSize != worldSize) || rank >= info.worldSize)
                return false;
            worldSize = info.worldSize;
        }
    }
    return true;
}

} // namespace pyrometer::analysis
