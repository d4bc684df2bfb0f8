#pragma once

#include "core/trace/byteinput.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace pyrometer::trace {

// A sliding window over a ByteInput: the bytes [offsetOf(0), offsetOf(size())) of the JSON
// text, followed by `padding` readable bytes (simdjson reads past the end of its input).
// Bytes already used are discarded from the front, so memory stays bounded. A plain file is
// mapped instead (ByteInput::map): then the window holds the whole file from the start (eof()
// is true), positions never move, and release() hands back pages already parsed.
class Window {
public:
    Window(ByteInput &input, std::size_t padding);

    char *data() { return m_data; }
    const char *data() const { return m_data; }
    bool mapped() const { return m_mapped; }
    std::size_t size() const { return m_size; }
    std::size_t capacity() const { return m_capacity; }
    bool eof() const { return m_eof; }
    std::string_view view(std::size_t from) const { return {m_data + from, m_size - from}; }
    std::uint64_t offsetOf(std::size_t position) const { return m_base + position; }
    // Bytes from position to the end of the allocation, padding included.
    std::size_t capacityFrom(std::size_t position) const { return m_capacity + m_padding - position; }

    // Drops [0, position), moving the rest to the front.
    void discardBefore(std::size_t position);
    // Reads until size() >= wanted (growing the buffer if needed) or the input ends.
    void fillTo(std::size_t wanted);
    // Reads at least one more byte unless the input ended; grows when full. False at the end.
    bool fillMore();
    void grow();
    // The bytes before position will not be read again (mapped files give their pages back).
    void release(std::size_t position);
    // Nothing more will be read: gives back the buffer, or every mapped page, so that building
    // the model does not hold them. The window is then empty at offsetOf(0), past the data.
    void close();

private:
    void reallocate(std::size_t capacity);
    void readSome(std::size_t upTo);

    ByteInput &m_input;
    std::size_t m_padding;
    std::unique_ptr<char[]> m_owned;
    char *m_data = nullptr;
    bool m_mapped = false;
    std::size_t m_capacity = 0;
    std::size_t m_size = 0;
    std::uint64_t m_base = 0;
    bool m_eof = false;
};

} // namespace pyrometer::trace
