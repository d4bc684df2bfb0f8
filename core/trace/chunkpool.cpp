#include "core/trace/chunkpool.h"

#include "core/trace/eventreader.h"

#include <algorithm>
#include <cstring>
#include <exception>

namespace pyrometer::trace {

ChunkPool::ChunkPool(int threads, const StopToken &stop) : m_stop(stop)
{
    try {
        for (int i = 0; i < threads; ++i)
            m_threads.emplace_back([this] { work(); });
    } catch (...) {
        stopThreads(); // joinable threads must not be destroyed
        throw;
    }
}

ChunkPool::~ChunkPool()
{
    stopThreads();
}

void ChunkPool::stopThreads()
{
    {
        const std::lock_guard lock(m_mutex);
        m_quit = true;
        m_queue.clear();
    }
    m_wake.notify_all();
    for (auto &thread : m_threads)
        thread.join();
}

void ChunkPool::submit(std::shared_ptr<Job> job)
{
    {
        const std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(job));
    }
    m_wake.notify_one();
}

bool ChunkPool::wait(Job &job, std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    return m_done.wait_for(lock, timeout, [&] { return job.done || job.dropped; });
}

void ChunkPool::cancel(const std::deque<std::shared_ptr<Job>> &jobs)
{
    std::unique_lock lock(m_mutex);
    for (auto &queued : m_queue)
        queued->dropped = true;
    m_queue.clear();
    for (const auto &job : jobs)
        m_done.wait(lock, [&] { return job->done || job->dropped; });
}

void ChunkPool::work()
{
    EventReader reader;
    std::vector<char> scratch;
    for (;;) {
        std::shared_ptr<Job> job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_quit || !m_queue.empty(); });
            if (m_quit)
                return;
            job = std::move(m_queue.front());
            m_queue.pop_front();
        }
        std::unique_ptr<TraceBuilder> builder;
        ChunkResult result;
        try {
            builder = std::make_unique<TraceBuilder>(true);
            if (job->copy.data() || job->file) {
                // '[', the events and their ']', then the padding: the buffer is reused, so the
                // bytes stay in cache from the copy to both of simdjson's stages.
                const auto bytes = job->file ? job->size : job->copy.size();
                const auto size = bytes + 1;
                scratch.resize(std::max(scratch.size(), size + EventReader::padding()));
                scratch[0] = '[';
                bool whole = true;
                if (job->file) {
                    whole = job->file->readAt(job->fileOffset, scratch.data() + 1, bytes) == bytes;
                    scratch[bytes] = ']';
                } else {
                    std::memcpy(scratch.data() + 1, job->copy.data(), bytes);
                }
                std::memset(scratch.data() + size, 0, EventReader::padding());
                if (whole)
                    result = reader.parseChunk(*builder, scratch.data(), size, size + EventReader::padding(),
                                               job->baseOffset, m_stop);
                else
                    result.ok = false; // a read error: the loader parses the chunk itself
            } else {
                result = reader.parseChunk(*builder, job->text, job->size, job->capacity, job->baseOffset, m_stop);
            }
        } catch (const std::exception &) {
            // Out of memory, most likely: an exception must not end this thread (and the
            // program). The chunk counts as failed with nothing done; the loader parses it
            // again on its own thread, where the exception reaches the caller as before.
            builder = std::make_unique<TraceBuilder>(true);
            result = ChunkResult();
            result.ok = false;
        }
        {
            const std::lock_guard lock(m_mutex);
            job->builder = std::move(builder);
            job->result = std::move(result);
            job->done = true;
        }
        m_done.notify_all();
    }
}

} // namespace pyrometer::trace
