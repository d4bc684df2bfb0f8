#include "core/snapshot/sources.h"

#include <algorithm>
#include <cstring>

namespace pyrometer::snapshot {

std::string_view FileSource::mapped()
{
    const char *data = m_input.map(0);
    return data ? std::string_view(data, m_input.fileSize()) : std::string_view();
}

InflatingSource::InflatingSource(trace::ByteInput &input) : m_input(input), m_thread([this] { inflate(); })
{}

InflatingSource::~InflatingSource()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_taken.notify_all();
    m_thread.join();
}

void InflatingSource::inflate()
{
    for (;;) {
        std::vector<char> chunk(kChunk);
        std::size_t filled = 0;
        while (filled < chunk.size()) {
            const std::size_t got = m_input.read(chunk.data() + filled, chunk.size() - filled);
            if (got == 0)
                break;
            filled += got;
            m_fileBytes.store(m_input.fileBytesRead(), std::memory_order_relaxed);
        }
        chunk.resize(filled);
        std::unique_lock lock(m_mutex);
        m_taken.wait(lock, [this] { return m_stop || m_chunks.size() < kAhead; });
        if (m_stop)
            return;
        const bool last = filled == 0;
        if (!last)
            m_chunks.push_back(std::move(chunk));
        if (last || filled < kChunk) {
            m_done = true;
            m_error = m_input.error();
        }
        lock.unlock();
        m_filled.notify_one();
        if (m_done)
            return;
    }
}

std::size_t InflatingSource::read(char *dst, std::size_t size)
{
    std::size_t copied = 0;
    while (copied < size) {
        if (m_pos == m_current.size()) {
            std::unique_lock lock(m_mutex);
            m_filled.wait(lock, [this] { return !m_chunks.empty() || m_done; });
            if (m_chunks.empty())
                break; // the end (or an error: see error())
            m_current = std::move(m_chunks.front());
            m_chunks.pop_front();
            m_pos = 0;
            lock.unlock();
            m_taken.notify_one();
        }
        const std::size_t n = std::min(size - copied, m_current.size() - m_pos);
        std::memcpy(dst + copied, m_current.data() + m_pos, n);
        m_pos += n;
        copied += n;
    }
    return copied;
}

std::string InflatingSource::error() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

std::size_t MemorySource::read(char *dst, std::size_t size)
{
    const std::size_t n = std::min(size, m_bytes.size() - m_pos);
    std::memcpy(dst, m_bytes.data() + m_pos, n);
    m_pos += n;
    return n;
}

} // namespace pyrometer::snapshot
