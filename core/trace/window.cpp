#include "core/trace/window.h"

#include <algorithm>
#include <cstring>

namespace pyrometer::trace {
namespace {
constexpr std::size_t kDefaultCapacity = 48u << 20;
}

Window::Window(ByteInput &input, std::size_t padding) : m_input(input), m_padding(padding)
{
    if (char *mapped = input.map(padding)) {
        m_data = mapped;
        m_mapped = true;
        m_size = m_capacity = static_cast<std::size_t>(input.fileSize());
        m_eof = true;
        return;
    }
    // Small plain files get a buffer of their size; everything else starts at the default and
    // grows only for events (or a prefix) larger than it.
    std::size_t capacity = kDefaultCapacity;
    if (!input.gzipped())
        capacity = static_cast<std::size_t>(std::min<std::uint64_t>(capacity, input.fileSize() + 64));
    else
        capacity = static_cast<std::size_t>(std::min<std::uint64_t>(capacity, input.fileSize() * 16 + 4096));
    reallocate(std::max<std::size_t>(capacity, 4096));
}

void Window::reallocate(std::size_t capacity)
{
    // Not value-initialised: pages of a large window become resident only once data is read.
    std::unique_ptr<char[]> data(new char[capacity + m_padding]);
    if (m_size)
        std::memcpy(data.get(), m_data, m_size);
    std::memset(data.get() + m_size, 0, m_padding);
    m_owned = std::move(data);
    m_data = m_owned.get();
    m_capacity = capacity;
}

void Window::grow()
{
    if (m_mapped)
        return;
    reallocate(m_capacity * 2);
}

void Window::discardBefore(std::size_t position)
{
    position = std::min(position, m_size);
    if (position == 0)
        return;
    if (m_mapped) {
        // Nothing moves: the window starts later in the mapping.
        release(position);
        m_data += position;
        m_size -= position;
        m_capacity -= position;
        m_base += position;
        return;
    }
    std::memmove(m_data, m_data + position, m_size - position);
    m_size -= position;
    m_base += position;
    std::memset(m_data + m_size, 0, m_padding);
}

void Window::release(std::size_t position)
{
    if (m_mapped)
        m_input.release(static_cast<std::size_t>(m_base) + std::min(position, m_size));
}

void Window::close()
{
    discardBefore(m_size);
    m_eof = true;
    if (m_mapped)
        return;
    m_owned.reset();
    m_data = nullptr;
    m_capacity = 0;
    m_padding = 0;
}

void Window::readSome(std::size_t upTo)
{
    const auto wanted = upTo - m_size;
    const auto got = m_input.read(m_data + m_size, wanted);
    m_size += got;
    if (got < wanted)
        m_eof = true;
    std::memset(m_data + m_size, 0, m_padding);
}

void Window::fillTo(std::size_t wanted)
{
    while (!m_eof && m_size < wanted) {
        if (m_size == m_capacity)
            reallocate(std::max(wanted, m_capacity * 2));
        readSome(std::min(wanted, m_capacity));
    }
}

bool Window::fillMore()
{
    if (m_eof)
        return false;
    if (m_size == m_capacity)
        grow();
    const auto before = m_size;
    readSome(m_capacity);
    return m_size > before;
}

} // namespace pyrometer::trace
