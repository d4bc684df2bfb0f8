#include "core/trace/stringpool.h"

#include <cstring>

namespace pyrometer::trace {
namespace {
constexpr std::size_t kBlockSize = 256 * 1024;
}

StringPool::StringPool()
{
    m_views.emplace_back();
    m_index.emplace(std::string_view(), 0);
}

std::size_t StringPool::Hash::operator()(std::string_view text) const noexcept
{
    // FNV-1a over 8-byte words: names are short and this is on the hot path of loading.
    std::uint64_t hash = 0xcbf29ce484222325ull ^ text.size();
    const char *p = text.data();
    std::size_t n = text.size();
    while (n >= 8) {
        std::uint64_t word;
        std::memcpy(&word, p, 8);
        hash = (hash ^ word) * 0x100000001b3ull;
        hash ^= hash >> 29;
        p += 8;
        n -= 8;
    }
    std::uint64_t tail = 0;
    if (n > 0) // an empty view may have a null data pointer
        std::memcpy(&tail, p, n);
    hash = (hash ^ tail) * 0x100000001b3ull;
    hash ^= hash >> 32;
    return static_cast<std::size_t>(hash);
}

std::string_view StringPool::store(std::string_view text)
{
    if (text.size() > kBlockSize / 4) {
        // Large strings get a block of their own so they do not waste the current block.
        auto block = std::make_unique_for_overwrite<char[]>(text.size());
        std::memcpy(block.get(), text.data(), text.size());
        const std::string_view stored(block.get(), text.size());
        m_blocks.insert(m_blocks.empty() ? m_blocks.end() : m_blocks.end() - 1, std::move(block));
        m_storedBytes += text.size();
        return stored;
    }
    if (m_blocks.empty() || m_blockUsed + text.size() > m_blockSize) {
        // Not zeroed: every chunk's builder makes one.
        m_blocks.push_back(std::make_unique_for_overwrite<char[]>(kBlockSize));
        m_blockSize = kBlockSize;
        m_blockUsed = 0;
        m_storedBytes += kBlockSize;
    }
    char *dst = m_blocks.back().get() + m_blockUsed;
    std::memcpy(dst, text.data(), text.size());
    m_blockUsed += text.size();
    return {dst, text.size()};
}

StringId StringPool::intern(std::string_view text)
{
    const auto hash = Hash()(text);
    auto &slot = m_cache[hash & (kCacheSize - 1)];
    if (m_views[slot] == text)
        return StringId(slot);
    if (const auto it = m_index.find(text); it != m_index.end()) {
        slot = it->second;
        return StringId(it->second);
    }
    const auto stored = store(text);
    const auto id = static_cast<std::uint32_t>(m_views.size());
    m_views.push_back(stored);
    m_index.emplace(stored, id);
    slot = id;
    return StringId(id);
}

StringId StringPool::find(std::string_view text) const
{
    if (const auto it = m_index.find(text); it != m_index.end())
        return StringId(it->second);
    return StringId::invalid();
}

std::size_t StringPool::memoryBytes() const
{
    return m_storedBytes + m_views.capacity() * sizeof(std::string_view)
        + m_index.size() * (sizeof(std::string_view) + sizeof(std::uint32_t) + 2 * sizeof(void *))
        + m_index.bucket_count() * sizeof(void *);
}

} // namespace pyrometer::trace
