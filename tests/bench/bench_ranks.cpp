// A distributed job summarised rank by rank: how fast, and whether memory stays that of a few
// loaded ranks however many ranks the job has.
//   rank_bench [JOB_DIR] [RANKS=64] [MB=50]
// When JOB_DIR (default /tmp/pyrometer_job_<RANKS>x<MB>MB) holds no traces, a job of RANKS
// ranks of about MB MB of JSON each is made there first by scripts/make-rank-job.py from the
// committed real rank. Then prints the time and peak RSS of one rank loaded, indexed and
// summarised (the baseline), and of summariseJob over the whole job with a thread per core:
// ranks per second and peak RSS against the baseline's (the target: at most 2x, the memory of
// two loaded ranks). Each runs in a child process of its own so that their peaks do not mix.
// Then the cluster's path: each rank summarised as pyrometer-cli summarize does (checksum, load,
// index, summary, JSON), the summary's size against the trace's and the time per rank, and the
// job opened from the merged summaries against the same job summarised from its traces.
#include "core/analysis/distributed.h"
#include "core/analysis/job.h"
#include "core/analysis/traceindex.h"
#include "core/summary/jobsource.h"
#include "core/summary/summaryfile.h"
#include "core/trace/loader.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

using namespace pyrometer;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = fs::path(PYROMETER_SOURCE_DIR) / "tests/fixtures/traces/multirank/sampled_rank-0.json.gz";

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Bytes of JSON in a gzip file.
std::uint64_t inflatedBytes(const fs::path &file)
{
    gzFile in = gzopen(file.c_str(), "rb");
    if (!in)
        return 0;
    std::uint64_t total = 0;
    char buffer[1 << 16];
    for (int got; (got = gzread(in, buffer, sizeof buffer)) > 0;)
        total += static_cast<std::uint64_t>(got);
    gzclose(in);
    return total;
}

bool makeJob(const fs::path &dir, int ranks, int megabytes)
{
    const auto sourceBytes = inflatedBytes(kSource);
    if (sourceBytes == 0) {
        std::fprintf(stderr, "rank_bench: cannot read %s\n", kSource.c_str());
        return false;
    }
    const auto repeat = std::max<long long>(1, std::llround(megabytes * 1e6 / static_cast<double>(sourceBytes)));
    const std::string command =
        "/usr/bin/python3 '" + (fs::path(PYROMETER_SOURCE_DIR) / "scripts/make-rank-job.py").string() + "' '" +
        kSource.string() + "' '" + dir.string() + "' --ranks " + std::to_string(ranks) + " --slow-rank " +
        std::to_string(ranks / 2) + " --repeat " + std::to_string(repeat) + " --seed 1";
    std::printf("making the job: %s\n", command.c_str());
    std::fflush(stdout);
    const auto start = std::chrono::steady_clock::now();
    if (std::system(command.c_str()) != 0) {
        std::fprintf(stderr, "rank_bench: the generator failed\n");
        return false;
    }
    std::printf("made in %.1f s\n", secondsSince(start));
    return true;
}

// Runs work in a child process; returns its peak RSS in MiB, or -1 when it failed.
double inChild(const std::function<bool()> &work)
{
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        const bool ok = work();
        std::fflush(stdout);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    rusage usage{};
    if (pid < 0 || wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

bool oneRank(const fs::path &file)
{
    auto start = std::chrono::steady_clock::now();
    auto loaded = trace::loadTrace(file);
    if (!loaded.ok()) {
        std::fprintf(stderr, "rank_bench: %s\n", loaded.error().message.c_str());
        return false;
    }
    const double loadSeconds = secondsSince(start);
    start = std::chrono::steady_clock::now();
    const auto index = analysis::buildTraceIndex(*loaded.value());
    const double indexSeconds = secondsSince(start);
    start = std::chrono::steady_clock::now();
    const auto figures = analysis::rankFigures(*index);
    const double figureSeconds = secondsSince(start);
    const auto &info = loaded.value()->info;
    std::printf("one rank (%s): %.1f MB of JSON, %llu events, %d steps\n", file.filename().c_str(),
                static_cast<double>(info.jsonBytes) / 1e6, static_cast<unsigned long long>(info.eventCount),
                figures.stepCount());
    std::printf("  load %.3f s, index %.3f s, figures %.3f s: %.3f s\n", loadSeconds, indexSeconds, figureSeconds,
                loadSeconds + indexSeconds + figureSeconds);
    return true;
}

bool wholeJob(const std::vector<fs::path> &files)
{
    const auto start = std::chrono::steady_clock::now();
    const auto job = analysis::summariseJob(files, {.threads = 0});
    const double seconds = secondsSince(start);
    if (!job.ok()) {
        std::fprintf(stderr, "rank_bench: %s\n", job.error().message.c_str());
        return false;
    }
    std::printf("job: %zu ranks in %.2f s with %u threads: %.1f ranks/s", files.size(), seconds,
                std::thread::hardware_concurrency(), static_cast<double>(files.size()) / seconds);
    for (const auto &straggler : job.value().stragglers)
        std::printf("; straggler rank %d (%.2fx)", straggler.rank, straggler.ratio);
    std::printf("\n");
    return true;
}

// The map task of the cluster's path, rank by rank, then the merge and the job opened from it.
bool summaries(const std::vector<fs::path> &files, const fs::path &out)
{
    fs::create_directories(out);
    summary::JobSummary job;
    std::uint64_t traceBytes = 0, jsonBytes = 0, summaryBytes = 0;
    double seconds = 0;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const auto start = std::chrono::steady_clock::now();
        auto rank = summary::summariseTraceFile(files[i]);
        if (!rank.ok())
            return false;
        const auto file = out / (std::to_string(i) + ".summary.json");
        if (!summary::writeRankSummary(file, rank.value()).ok())
            return false;
        seconds += secondsSince(start);
        traceBytes += rank.value().traceBytes;
        jsonBytes += files[i].extension() == ".gz" ? inflatedBytes(files[i]) : fs::file_size(files[i]);
        summaryBytes += fs::file_size(file);
        job.ranks.push_back(std::move(rank).value());
    }
    const double n = static_cast<double>(files.size());
    std::printf("summaries: %.1f KB a rank against %.1f MB of trace file (%.1f MB of JSON): 1/%.0f of the file, 1/%.0f "
                "of the JSON; %.3f s a rank\n",
                static_cast<double>(summaryBytes) / n / 1e3, static_cast<double>(traceBytes) / n / 1e6,
                static_cast<double>(jsonBytes) / n / 1e6,
                static_cast<double>(traceBytes) / static_cast<double>(summaryBytes),
                static_cast<double>(jsonBytes) / static_cast<double>(summaryBytes), seconds / n);
    auto start = std::chrono::steady_clock::now();
    const auto merged = out / "job.json";
    if (!summary::writeJobSummary(merged, summary::merge({job})).ok())
        return false;
    const double mergeSeconds = secondsSince(start);
    start = std::chrono::steady_clock::now();
    ProgressReporter progress;
    const StopToken stop;
    const auto opened = summary::loadJob({merged}, {}, progress, stop);
    const double openSeconds = secondsSince(start);
    if (!opened.ok())
        return false;
    std::printf("merged into %.1f KB in %.3f s; the job opened from it in %.3f s (%.0f ranks/s)\n",
                static_cast<double>(fs::file_size(merged)) / 1e3, mergeSeconds, openSeconds, n / openSeconds);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    const int ranks = argc > 2 ? std::atoi(argv[2]) : 64;
    const int megabytes = argc > 3 ? std::atoi(argv[3]) : 50;
    if (ranks < 1 || megabytes < 1) {
        std::fprintf(stderr, "usage: rank_bench [JOB_DIR] [RANKS=64] [MB=50]\n");
        return 2;
    }
    const fs::path dir = argc > 1 ? fs::path(argv[1])
                                  : fs::temp_directory_path() / ("pyrometer_job_" + std::to_string(ranks) + "x" +
                                                                 std::to_string(megabytes) + "MB");
    auto files = analysis::jobFiles({dir});
    if (!files.ok()) {
        if (!makeJob(dir, ranks, megabytes))
            return 2;
        files = analysis::jobFiles({dir});
        if (!files.ok()) {
            std::fprintf(stderr, "rank_bench: %s\n", files.error().message.c_str());
            return 2;
        }
    }
    std::printf("job %s: %zu rank files\n", dir.c_str(), files.value().size());

    const double onePeak = inChild([&] { return oneRank(files.value().front()); });
    if (onePeak < 0)
        return 2;
    std::printf("  peak RSS %.0f MB\n", onePeak);
    const double jobPeak = inChild([&] { return wholeJob(files.value()); });
    if (jobPeak < 0)
        return 2;
    std::printf("  peak RSS %.0f MB: %.2fx one rank's (target <= 2)\n", jobPeak, jobPeak / onePeak);
    const double summaryPeak = inChild([&] { return summaries(files.value(), dir / "summaries"); });
    if (summaryPeak < 0)
        return 2;
    std::printf("  peak RSS %.0f MB\n", summaryPeak);
    return 0;
}
