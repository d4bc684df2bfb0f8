#include "core/torch/torcherror.h"

#include <vector>

namespace pyrometer::torch {
namespace {

std::string_view trim(std::string_view text)
{
    while (!text.empty() && std::string_view(" \t\r\n").find(text.front()) != std::string_view::npos)
        text.remove_prefix(1);
    while (!text.empty() && std::string_view(" \t\r\n").find(text.back()) != std::string_view::npos)
        text.remove_suffix(1);
    return text;
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

} // namespace

std::string cleanTorchMessage(std::string_view what)
{
    // The C++ backtrace starts at "Exception raised from"; everything after it is frames.
    if (const auto backtrace = what.find("Exception raised from"); backtrace != std::string_view::npos)
        what = what.substr(0, backtrace);
    std::vector<std::string_view> lines;
    while (!what.empty()) {
        const auto end = what.find('\n');
        const auto line = trim(what.substr(0, end));
        if (!line.empty())
            lines.push_back(line);
        if (end == std::string_view::npos)
            break;
        what = what.substr(end + 1);
    }
    if (lines.empty())
        return "unknown libtorch error";
    // A TorchScript traceback ends with "<Kind>Error: message" (possibly continued below).
    std::size_t first = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto colon = lines[i].find("Error: ");
        if (colon != std::string_view::npos && lines[i].find(' ') > colon)
            first = i;
    }
    std::string message;
    for (std::size_t i = first; i < lines.size(); ++i) {
        auto line = lines[i];
        if (startsWith(line, "Traceback of TorchScript") || startsWith(line, "The following operation failed") ||
            startsWith(line, "File \"code/") || startsWith(line, "~") || startsWith(line, "Serialized   File"))
            continue;
        if (i == first) {
            const auto colon = line.find("Error: ");
            if (colon != std::string_view::npos && line.find(' ') > colon)
                line = line.substr(colon + 7);
        }
        if (!message.empty())
            message += ' ';
        message += line;
        if (message.size() > 400)
            break;
    }
    if (message.size() > 400)
        message = message.substr(0, 397) + "...";
    return message;
}

} // namespace pyrometer::torch
