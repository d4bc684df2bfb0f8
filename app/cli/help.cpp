#include "app/cli/help.h"

#include "app/cli/output.h"
#include "app/cli/textwrap.h"

#include <algorithm>
#include <memory>
#include <sstream>

namespace pyrometer::cli {

namespace {

// Descriptions narrower than this start on a line of their own instead of beside their name.
constexpr std::size_t kMinimumRoom = 20;

// Where the continuation lines of line go: under its description column when it has one (text,
// two or more spaces, text), else under its first word.
std::size_t hangingIndent(const std::string &line, std::size_t width)
{
    const auto lead = line.find_first_not_of(' ');
    if (lead == std::string::npos)
        return 0;
    const auto gap = line.find("  ", lead);
    if (gap != std::string::npos) {
        const auto column = line.find_first_not_of(' ', gap);
        if (column != std::string::npos && displayWidth(line.substr(0, column)) + kMinimumRoom <= width)
            return displayWidth(line.substr(0, column));
    }
    return std::min(lead, width > kMinimumRoom ? width - kMinimumRoom : 0);
}

void wrapLine(std::ostringstream &out, const std::string &line, std::size_t width)
{
    const auto indent = hangingIndent(line, width);
    const auto head = byteOffsetOf(line, indent);
    const auto lines = wrapText(line.substr(head), width - indent);
    for (std::size_t i = 0; i < lines.size(); ++i)
        out << (i == 0 ? line.substr(0, head) : std::string(indent, ' ')) << lines[i] << '\n';
}

} // namespace

std::string wrapHelp(const std::string &text, std::size_t width)
{
    std::ostringstream out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (displayWidth(line) <= width)
            out << line << '\n';
        else
            wrapLine(out, line, width);
    }
    auto wrapped = out.str();
    if (!text.empty() && text.back() != '\n' && !wrapped.empty())
        wrapped.pop_back();
    return wrapped;
}

std::string HelpFormatter::make_help(const CLI::App *app, std::string name, CLI::AppFormatMode mode) const
{
    return wrapHelp(CLI::Formatter::make_help(app, std::move(name), mode), terminalColumns());
}

void installHelpFormatter(CLI::App &app)
{
    auto formatter = std::make_shared<HelpFormatter>();
    formatter->column_width(std::clamp<std::size_t>(terminalColumns() * 2 / 5, 16, 30));
    app.formatter(formatter);
}

} // namespace pyrometer::cli
