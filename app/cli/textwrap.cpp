#include "app/cli/textwrap.h"

#include <algorithm>

namespace pyrometer::cli {

std::size_t displayWidth(std::string_view text)
{
    return std::size_t(std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::size_t byteOffsetOf(std::string_view text, std::size_t points)
{
    std::size_t seen = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
            continue;
        if (seen++ == points)
            return i;
    }
    return text.size();
}

namespace {

// The first piece of a word wider than width: up to its last separator that fits, else width
// code points.
std::size_t breakOf(std::string_view word, std::size_t width)
{
    const auto limit = byteOffsetOf(word, width);
    const auto separator = word.substr(0, limit).find_last_of(",|/");
    return separator != std::string_view::npos && separator > 0 ? separator + 1 : limit;
}

} // namespace

std::vector<std::string> wrapText(std::string_view text, std::size_t width)
{
    width = std::max<std::size_t>(width, 1);
    std::vector<std::string> lines;
    std::string line;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find(' ', start);
        if (end == std::string_view::npos)
            end = text.size();
        auto word = text.substr(start, end - start);
        start = end + 1;
        if (word.empty())
            continue;
        if (!line.empty() && displayWidth(line) + 1 + displayWidth(word) > width) {
            lines.push_back(std::move(line));
            line.clear();
        }
        if (!line.empty()) {
            line += ' ';
            line += word;
            continue;
        }
        while (displayWidth(word) > width) {
            const auto cut = breakOf(word, width);
            lines.emplace_back(word.substr(0, cut));
            word.remove_prefix(cut);
        }
        line = word;
    }
    if (!line.empty())
        lines.push_back(std::move(line));
    return lines;
}

} // namespace pyrometer::cli
