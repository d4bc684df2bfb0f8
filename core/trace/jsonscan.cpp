#include "core/trace/jsonscan.h"

#include <cstring>

namespace pyrometer::trace::jsonscan {
namespace {

// Index just past the string whose opening quote is at text[begin], or npos.
std::size_t skipString(std::string_view text, std::size_t begin)
{
    std::size_t i = begin + 1;
    while (i < text.size()) {
        const void *hit = std::memchr(text.data() + i, '"', text.size() - i);
        if (!hit)
            return npos;
        std::size_t quote = static_cast<std::size_t>(static_cast<const char *>(hit) - text.data());
        std::size_t backslashes = 0;
        while (quote - backslashes > begin + 1 && text[quote - backslashes - 1] == '\\')
            ++backslashes;
        if (backslashes % 2 == 0)
            return quote + 1;
        i = quote + 1;
    }
    return npos;
}

std::size_t skipSpace(std::string_view text, std::size_t i)
{
    while (i < text.size() && isSpace(text[i]))
        ++i;
    return i;
}

} // namespace

EventsArray findEventsArray(std::string_view text, bool eof)
{
    EventsArray result;
    auto invalid = [&](std::string problem, std::size_t offset) {
        result.status = EventsArray::Status::Invalid;
        result.problem = std::move(problem);
        result.problemOffset = offset;
        return result;
    };
    std::size_t i = 0;
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        i = 3;
    i = skipSpace(text, i);
    if (i == text.size()) {
        if (!eof)
            return result;
        return invalid(text.empty() ? "the file is empty" : "the file holds only blanks", npos);
    }
    if (text[i] == '[') {
        result.status = EventsArray::Status::Found;
        result.open = i;
        result.bare = true;
        return result;
    }
    if (text[i] != '{')
        return invalid("not a JSON trace: expected '{' or '['", i);

    long depth = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"') {
            const auto end = skipString(text, i);
            if (end == npos)
                break;
            if (depth == 1) {
                const auto key = text.substr(i + 1, end - i - 2);
                auto colon = skipSpace(text, end);
                if (colon == text.size())
                    break;
                if (text[colon] == ':' && key == "traceEvents") {
                    const auto value = skipSpace(text, colon + 1);
                    if (value == text.size())
                        break;
                    if (text[value] != '[')
                        return invalid("\"traceEvents\" is not an array", value);
                    result.status = EventsArray::Status::Found;
                    result.open = value;
                    return result;
                }
            }
            i = end;
            continue;
        }
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return invalid("no \"traceEvents\" array in the top-level object", npos);
            if (depth < 0)
                return invalid("unbalanced brackets", i);
        }
        ++i;
    }
    if (eof)
        return invalid("the file ends before the \"traceEvents\" array (truncated?)", text.size());
    return result;
}

std::size_t exactBoundary(std::string_view text, std::size_t target, std::size_t &lastSeparator,
                          std::size_t &badClose)
{
    lastSeparator = npos;
    badClose = npos;
    long depth = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        switch (c) {
        case '"': {
            const auto end = skipString(text, i);
            if (end == npos)
                return npos;
            i = end;
            continue;
        }
        case '{':
        case '[':
            ++depth;
            break;
        case '}':
            if (--depth < 0) {
                badClose = i;
                return npos;
            }
            break;
        case ']':
            if (depth == 0)
                return i; // the array ends: a boundary whatever the target

            --depth;
            break;
        case ',':
            if (depth == 0) {
                if (i >= target)
                    return i;
                lastSeparator = i;
            }
            break;
        default:
            break;
        }
        ++i;
    }
    return npos;
}

std::size_t nthSeparator(std::string_view text, std::size_t count)
{
    std::size_t position = 0;
    for (std::size_t k = 0; k < count; ++k) {
        std::size_t last = npos;
        std::size_t bad = npos;
        const auto next = exactBoundary(text.substr(position), 0, last, bad);
        if (next == npos)
            return npos;
        if (k + 1 == count)
            return position + next;
        if (text[position + next] == ']')
            return npos;
        position += next + 1;
    }
    return npos;
}

std::size_t guessBoundary(std::string_view text, std::size_t target)
{
    std::size_t i = target;
    while (i < text.size()) {
        const void *hit = std::memchr(text.data() + i, '}', text.size() - i);
        if (!hit)
            return npos;
        const auto brace = static_cast<std::size_t>(static_cast<const char *>(hit) - text.data());
        const auto next = skipSpace(text, brace + 1);
        if (next < text.size() && (text[next] == ',' || text[next] == ']'))
            return next;
        i = brace + 1;
    }
    return npos;
}

std::size_t objectEnd(std::string_view text)
{
    long depth = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"') {
            const auto end = skipString(text, i);
            if (end == npos)
                return npos;
            i = end;
            continue;
        }
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return i + 1;
            if (depth < 0)
                return npos;
        }
        ++i;
    }
    return npos;
}

std::size_t invalidUtf8(std::string_view text)
{
    const auto *p = reinterpret_cast<const unsigned char *>(text.data());
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        unsigned min = 0;
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            min = 0x10000;
        } else {
            return i;
        }
        if (i + len > n)
            return i;
        unsigned cp = c & (0x7F >> len);
        for (std::size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += len;
    }
    return npos;
}

} // namespace pyrometer::trace::jsonscan
