#pragma once
// --help that fits the terminal: CLI11's layout, every line wider than terminalColumns()
// wrapped at spaces, continuation lines indented under the description column.

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

namespace pyrometer::cli {

// text with every line wider than width broken into lines of at most width columns. A line
// with a description column (two or more spaces after its first words) continues under it.
std::string wrapHelp(const std::string &text, std::size_t width);

class HelpFormatter : public CLI::Formatter {
public:
    std::string make_help(const CLI::App *app, std::string name, CLI::AppFormatMode mode) const override;
};

// Gives app (and the subcommands added to it afterwards) the HelpFormatter, with a name column
// that leaves room for descriptions on narrow terminals.
void installHelpFormatter(CLI::App &app);

} // namespace pyrometer::cli
