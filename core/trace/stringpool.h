#pragma once

#include "core/trace/ids.h"

#include <cstddef>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pyrometer::trace {

// Interns strings: each distinct text is stored once and named by a StringId. Views returned by
// view() stay valid for the pool's lifetime (text lives in fixed blocks that never move).
// Id 0 is always the empty string.
class StringPool {
public:
    StringPool();
    StringPool(StringPool &&) noexcept = default;
    StringPool &operator=(StringPool &&) noexcept = default;
    StringPool(const StringPool &) = delete;
    StringPool &operator=(const StringPool &) = delete;

    StringId intern(std::string_view text);
    // The id of text if it was interned, else invalid.
    StringId find(std::string_view text) const;
    std::string_view view(StringId id) const { return id.isValid() && id.value < m_views.size() ? m_views[id.value] : std::string_view(); }

    std::size_t size() const { return m_views.size(); }
    // Bytes held by the pool (text blocks, views and the index), for memory reports.
    std::size_t memoryBytes() const;

    static constexpr StringId kEmpty = StringId(0);

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const noexcept;
    };

    std::string_view store(std::string_view text);

    std::vector<std::unique_ptr<char[]>> m_blocks;
    std::size_t m_blockUsed = 0;
    std::size_t m_blockSize = 0;
    std::size_t m_storedBytes = 0;
    std::vector<std::string_view> m_views;
    std::unordered_map<std::string_view, std::uint32_t, Hash> m_index;
    // A direct-mapped cache in front of m_index: most names repeat, and a hit costs one hash
    // and one compare. Entry 0 (the empty string) doubles as "empty slot".
    static constexpr std::size_t kCacheSize = 4096;
    std::vector<std::uint32_t> m_cache = std::vector<std::uint32_t>(kCacheSize, 0);
};

} // namespace pyrometer::trace
