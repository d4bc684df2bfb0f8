// summariseRanks: a job's rank traces loaded a few at a time within a memory budget, each rank's
// failure kept as its own (the other ranks load on).
#include "core/analysis/job.h"

#include "core/trace/loader.h"
#include "core/util/format.h"
#include "core/util/heap.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include <unistd.h>

namespace pyrometer::analysis {

namespace fs = std::filesystem;

namespace {

std::uint64_t physicalMemoryBytes()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
    return std::uint64_t(8) << 30;
}

// One rank: load, index, figures, the trace dropped. What the loader says and anything thrown
// (an allocation that fails on a huge trace) become the rank's loadError, naming the file.
RankFigures loadRank(const fs::path &file, std::uint64_t estimate, const StopToken &stop)
{
    RankFigures figures;
    try {
        trace::LoadOptions load;
        load.parserThreads = 0; // one rank per thread: ranks are the parallel part
        ProgressReporter quiet;
        auto loaded = trace::loadTrace(file, load, quiet, stop);
        if (!loaded) {
            figures.loadError = loaded.error().message;
        } else {
            auto trace = std::move(loaded).value();
            if (const auto index = buildTraceIndex(*trace, &stop))
                figures = rankFigures(*index, &stop);
        }
    } catch (const std::bad_alloc &) {
        figures = {};
        figures.loadError = file.string() + ": ran out of memory loading it (about " + formatBytes(estimate) +
                            " of JSON); summarise it on a larger machine (pyrometer-cli summarize)";
    } catch (const std::exception &error) {
        figures = {};
        figures.loadError = file.string() + ": could not be loaded (" + error.what() + ")";
    } catch (...) {
        figures = {};
        figures.loadError = file.string() + ": could not be loaded (an unknown error)";
    }
    if (!figures.loadError.empty())
        figures.rank = rankFromFileName(file);
    figures.file = file.string();
    // Only the figures stay: the trace and its index went back to the system above, so a job
    // holds about the ranks in flight.
    releaseFreedMemory();
    return figures;
}

} // namespace

std::uint64_t jobLoadBytes(const fs::path &file)
{
    std::error_code error;
    const auto size = fs::file_size(file, error);
    if (error)
        return 0;
    std::ifstream in(file, std::ios::binary);
    unsigned char head[2] = {};
    if (size < 18 || !in.read(reinterpret_cast<char *>(head), 2) || head[0] != 0x1f || head[1] != 0x8b)
        return size;
    unsigned char tail[4] = {};
    in.seekg(-4, std::ios::end);
    if (!in.read(reinterpret_cast<char *>(tail), 4))
        return size;
    std::uint64_t inflated = std::uint64_t(tail[0]) | std::uint64_t(tail[1]) << 8 | std::uint64_t(tail[2]) << 16 |
                             std::uint64_t(tail[3]) << 24;
    // The trailer holds the size modulo 4 GiB: JSON compresses several times, so a size well below
    // the file's has wrapped.
    while (inflated + 4096 < size)
        inflated += std::uint64_t(1) << 32;
    return std::max<std::uint64_t>(inflated, size);
}

Result<std::vector<RankFigures>> summariseRanks(const std::vector<fs::path> &files, const JobOptions &options,
                                                ProgressReporter &progress, const StopToken &stop)
{
    if (files.empty())
        return std::vector<RankFigures>();
    const auto cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const auto threads = std::clamp(options.threads > 0 ? options.threads : cores, 1, static_cast<int>(files.size()));
    const auto budget = options.memoryBudgetBytes > 0 ? options.memoryBudgetBytes : physicalMemoryBytes() / 2;
    std::vector<std::uint64_t> estimates;
    for (const auto &file : files)
        estimates.push_back(jobLoadBytes(file));

    std::vector<RankFigures> ranks(files.size());
    std::mutex mutex; // guards next, inFlight, done and the progress
    std::condition_variable released;
    std::size_t next = 0;
    std::uint64_t inFlight = 0;
    std::size_t done = 0;
    const auto tell = [&](RankLoadEvent::Kind kind, std::size_t file, std::uint64_t bytes) {
        if (options.onLoadEvent)
            options.onLoadEvent({kind, file, bytes});
    };
    auto work = [&] {
        std::unique_lock lock(mutex);
        for (;;) {
            // Files start in order; the next one waits while it would take the loads under way
            // above the budget, and starts at once when nothing else is loading.
            bool told = false;
            while (next < files.size() && !stop.stopRequested() && inFlight > 0 &&
                   inFlight + estimates[next] > budget) {
                if (!told) {
                    told = true;
                    const auto file = next;
                    const auto bytes = inFlight;
                    lock.unlock();
                    tell(RankLoadEvent::Kind::WaitingForMemory, file, bytes);
                    lock.lock();
                    continue;
                }
                // A stop is polled, not signalled.
                released.wait_for(lock, std::chrono::milliseconds(100));
            }
            if (next >= files.size() || stop.stopRequested())
                return;
            const auto i = next++;
            inFlight += estimates[i];
            auto bytes = inFlight;
            lock.unlock();
            tell(RankLoadEvent::Kind::Started, i, bytes);
            ranks[i] = loadRank(files[i], estimates[i], stop);
            lock.lock();
            bytes = inFlight;
            lock.unlock();
            tell(RankLoadEvent::Kind::Finished, i, bytes);
            lock.lock();
            inFlight -= estimates[i];
            progress.report(++done, files.size());
            released.notify_all();
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error &) {
            break; // fewer threads than asked for: the ones running take the rest
        }
    }
    work();
    for (auto &thread : pool)
        thread.join();
    if (stop.stopRequested())
        return Error{"reading the job's ranks was cancelled"};
    const auto failed = std::count_if(ranks.begin(), ranks.end(), [](const RankFigures &r) { return !r.loadError.empty(); });
    if (failed == static_cast<std::ptrdiff_t>(ranks.size()))
        return Error{ranks.front().loadError +
                     (ranks.size() > 1 ? " (and the other " + std::to_string(ranks.size() - 1) + " ranks failed too)"
                                       : std::string())};
    progress.finish();
    return ranks;
}

} // namespace pyrometer::analysis
