#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace pyrometer::cli {

enum class Format { Table, Csv, Markdown, Json };

// Adds --format table|csv|md|json (table by default) to a subcommand.
void addFormatOption(CLI::App &command, Format *format);

// A table of text cells for the table, csv and md formats. Columns whose header is in
// rightAligned are aligned right in table form (numbers).
struct TextTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<bool> rightAligned; // per column; missing entries mean left
    std::vector<bool> prose = {};   // per column: sentences, printed under their row in table form
};

// Writes table in format (Table, Csv or Markdown). CSV quotes cells as RFC 4180 says. The
// table form fits terminalColumns(): long names are elided in the middle ("…"), never below
// 16 characters, numbers are never cut, and prose columns are printed under their row,
// wrapped; csv and md keep every cell whole, in its column.
void writeTable(std::ostream &out, const TextTable &table, Format format);

// The width table output fits: $COLUMNS when set, else the terminal's width when standard
// output is one, else 80.
std::size_t terminalColumns();

// Writes json, pretty-printed with two spaces, and a newline.
void writeJson(std::ostream &out, const nlohmann::json &json);

// Prints "pyrometer-cli: MESSAGE" on stderr; returns kBadInput for `return badInput(...)`.
int badInput(const std::string &message);

} // namespace pyrometer::cli
