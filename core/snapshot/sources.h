#pragma once

#include "core/snapshot/pickle.h"
#include "core/trace/byteinput.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace pyrometer::snapshot {

// A plain file: mapped whole where it can be (the machine then reads it in place and gives the
// pages back as it goes), read() otherwise.
class FileSource final : public PickleSource {
public:
    explicit FileSource(trace::ByteInput &input) : m_input(input) {}
    std::size_t read(char *dst, std::size_t size) override { return m_input.read(dst, size); }
    std::uint64_t remainingAtMost() const override
    {
        return m_input.fileSize() - std::min(m_input.fileSize(), m_input.fileBytesRead());
    }
    std::string error() const override { return m_input.error(); }
    std::string_view mapped() override;
    void release(std::uint64_t upTo) override { m_input.release(std::size_t(upTo)); }

private:
    trace::ByteInput &m_input;
};

// A gzip file inflated on a thread of its own, a few chunks ahead of the machine: inflating and
// parsing overlap, and the machine never waits on ISA-L unless it outruns it.
class InflatingSource final : public PickleSource {
public:
    explicit InflatingSource(trace::ByteInput &input);
    ~InflatingSource() override; // stops the thread and waits for it
    std::size_t read(char *dst, std::size_t size) override;
    std::uint64_t remainingAtMost() const override { return UINT64_MAX; }
    std::string error() const override;
    // Compressed bytes read so far, for progress (the input itself belongs to the thread).
    std::uint64_t fileBytesRead() const { return m_fileBytes.load(std::memory_order_relaxed); }

private:
    void inflate();

    static constexpr std::size_t kChunk = std::size_t(4) << 20;
    static constexpr std::size_t kAhead = 3;
    trace::ByteInput &m_input;
    mutable std::mutex m_mutex;
    std::condition_variable m_filled;
    std::condition_variable m_taken;
    std::deque<std::vector<char>> m_chunks;
    std::vector<char> m_current;
    std::size_t m_pos = 0;
    bool m_done = false;
    bool m_stop = false;
    std::string m_error;
    std::atomic<std::uint64_t> m_fileBytes{0};
    std::thread m_thread; // last: started once the rest exists
};

// Bytes already in memory (tests, fuzzing).
class MemorySource final : public PickleSource {
public:
    explicit MemorySource(std::string_view bytes) : m_bytes(bytes) {}
    std::size_t read(char *dst, std::size_t size) override;
    std::uint64_t remainingAtMost() const override { return m_bytes.size() - m_pos; }

private:
    std::string_view m_bytes;
    std::size_t m_pos = 0;
};

} // namespace pyrometer::snapshot
