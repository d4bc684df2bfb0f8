#include "app/cli/jobinput.h"
#include "app/cli/callcontext.h"

#include "app/cli/output.h"
#include "core/summary/jobsource.h"

#include <cstdio>
#include <mutex>

#include <unistd.h>

namespace pyrometer::cli {
namespace {

// "ranks 12/64 (18%)" rewritten in place on stderr; erased when done, so that a terminal shows
// the result alone. Ranks finish on worker threads, hence the lock.
class TerminalProgress {
public:
    explicit TerminalProgress(std::size_t ranks) : m_ranks(ranks), m_shown(isatty(STDERR_FILENO) == 1) {}
    ~TerminalProgress() { erase(); }
    TerminalProgress(const TerminalProgress &) = delete;
    TerminalProgress &operator=(const TerminalProgress &) = delete;

    ProgressReporter reporter()
    {
        if (!m_shown)
            return {};
        return ProgressReporter([this](int permille) { show(permille); }, std::chrono::milliseconds(100));
    }

    // Clears the line, before a message or the result is written.
    void erase()
    {
        const std::lock_guard lock(m_mutex);
        if (!m_dirty)
            return;
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
        m_dirty = false;
    }

private:
    void show(int permille)
    {
        const std::lock_guard lock(m_mutex);
        const auto done = std::size_t(permille) * m_ranks / std::size_t(ProgressReporter::kScale);
        std::fprintf(stderr, "\rpyrometer-cli: summarising ranks %zu/%zu (%d%%) ", done, m_ranks, permille / 10);
        std::fflush(stderr);
        m_dirty = true;
    }

    std::size_t m_ranks;
    bool m_shown;
    bool m_dirty = false;
    std::mutex m_mutex;
};

} // namespace

std::optional<analysis::JobFigures> loadJob(const std::vector<std::string> &paths, int threads)
{
    if (const auto *context = callContext()) {
        auto job = context->documents->job(paths);
        if (!job) {
            std::string named;
            for (const auto &path : paths)
                named += (named.empty() ? "" : " ") + path;
            badInput(notOpenedMessage(named));
        }
        return job;
    }
    const auto files = analysis::jobFiles(std::vector<std::filesystem::path>(paths.begin(), paths.end()));
    if (!files.ok()) {
        badInput(files.error().message);
        return std::nullopt;
    }
    analysis::JobOptions options;
    options.threads = threads;
    TerminalProgress terminal(files.value().size());
    auto progress = terminal.reporter();
    auto job = summary::loadJob(files.value(), options, progress, StopToken());
    terminal.erase();
    if (!job.ok()) {
        badInput(job.error().message);
        return std::nullopt;
    }
    for (const auto &failed : job.value().failedRanks)
        badInput(failed.message);
    return std::move(job).value();
}

} // namespace pyrometer::cli
