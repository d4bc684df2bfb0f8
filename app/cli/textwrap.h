#pragma once
// Plain-text layout for the terminal: display widths of UTF-8 text and word wrapping, shared
// by the tables (app/cli/output) and --help (app/cli/help).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::cli {

// Display width of UTF-8 text: code points, not bytes (µ is two bytes, one column).
std::size_t displayWidth(std::string_view text);

// The byte offset of code point `points` in UTF-8 text (its size when text is shorter).
std::size_t byteOffsetOf(std::string_view text, std::size_t points);

// text broken at spaces into lines of at most width code points. A word longer than a line is
// broken after its last ',', '|' or '/' that fits, else at the width: no line is ever wider.
std::vector<std::string> wrapText(std::string_view text, std::size_t width);

} // namespace pyrometer::cli
