#pragma once

#include "core/trace/byteinput.h"
#include "core/trace/eventparser.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace pyrometer::trace {

// Worker threads that parse chunks of the events array, each into a partial TraceBuilder of
// its own; the loader absorbs the results in file order. The text of a queued chunk (or the
// file it is read from) must stay valid and unchanged until the chunk is done or cancel()
// returned.
class ChunkPool {
public:
    struct Job {
        // In place: "[" events "]" at text, with readable padding up to text + capacity.
        const char *text = nullptr;
        std::size_t size = 0;
        std::size_t capacity = 0;
        // Or copied: the events and the closing ']' (no byte was free for the '['), parsed
        // from a copy with the '[' put in front.
        std::string_view copy;
        // Or read from a file that maps (ByteInput::readAt): `size` bytes at fileOffset, the
        // events and the ',' or ']' after them, read into a buffer between a '[' and a ']'.
        const ByteInput *file = nullptr;
        std::uint64_t fileOffset = 0;
        std::uint64_t baseOffset = 0; // JSON text offset of the '[' (real or not)
        // For the loader: window positions of the separators before and after the chunk.
        std::size_t separator = 0;
        std::size_t end = 0;
        bool last = false; // ends at the array's ']'

        // Results, set by the worker.
        std::unique_ptr<TraceBuilder> builder;
        ChunkResult result;
        bool done = false;
        bool dropped = false; // cancelled before a worker took it
    };

    ChunkPool(int threads, const StopToken &stop);
    ~ChunkPool();
    ChunkPool(const ChunkPool &) = delete;
    ChunkPool &operator=(const ChunkPool &) = delete;

    void submit(std::shared_ptr<Job> job);
    // True when the job is done; waits at most timeout.
    bool wait(Job &job, std::chrono::milliseconds timeout);
    // Drops the jobs no worker has taken and waits for those running.
    void cancel(const std::deque<std::shared_ptr<Job>> &jobs);

private:
    void work();
    void stopThreads();

    const StopToken &m_stop;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::deque<std::shared_ptr<Job>> m_queue;
    std::vector<std::thread> m_threads;
    bool m_quit = false;
};

} // namespace pyrometer::trace
