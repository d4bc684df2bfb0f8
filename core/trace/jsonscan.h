#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pyrometer::trace::jsonscan {

// Byte-level helpers that find structure in JSON text without parsing it: where the
// traceEvents array starts, where one event ends. They track strings and nesting only, and are
// used where simdjson cannot help (cutting a huge array into chunks, re-reading one event).

constexpr std::size_t npos = static_cast<std::size_t>(-1);

inline bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

struct EventsArray {
    enum class Status { Found, NeedMore, Invalid };
    Status status = Status::NeedMore;
    std::size_t open = npos; // position of the array's '['
    bool bare = false;       // the whole document is the array (legacy exporter)
    std::string problem;     // for Invalid
    std::size_t problemOffset = npos;
};

// Finds the traceEvents array in text, which starts at the beginning of the file. eof says
// whether text is all there is; NeedMore asks for a longer prefix.
EventsArray findEventsArray(std::string_view text, bool eof);

// Where the array element that starts at text[0] (after a ',' or the '[') and all that follow
// it up to `target` end. Returns the position of the first ',' or ']' at array level at or after
// target, or npos when text ends first. lastSeparator receives the last array-level separator
// seen before that (npos if none), so that a truncated file can be cut after its last complete
// event. badClose receives the position of a closing bracket that matches nothing.
std::size_t exactBoundary(std::string_view text, std::size_t target, std::size_t &lastSeparator,
                          std::size_t &badClose);

// Position of the count-th array-level ',' or ']' in text (which starts after the '[' or a
// separator), or npos.
std::size_t nthSeparator(std::string_view text, std::size_t count);

// A likely element boundary at or after target: a '}' followed by blanks and ',' or ']'.
// Returns the position of that ',' or ']', or npos. Cheap but may be fooled by strings or
// nested arrays of objects; the parser validates each guess.
std::size_t guessBoundary(std::string_view text, std::size_t target);

// The end (one past the closing '}') of the object that starts at text[0], or npos.
std::size_t objectEnd(std::string_view text);

// Position of the first byte that is not valid UTF-8, or npos.
std::size_t invalidUtf8(std::string_view text);

} // namespace pyrometer::trace::jsonscan
