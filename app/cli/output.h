#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/util/noise.h"

#include <cstdint>
#include <optional>
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
    // Headers of the columns a narrow terminal may go without, least important first; the
    // columns not named here are always shown. Names of columns the table lacks are ignored.
    std::vector<std::string> dropFirst = {};
};

// Writes table in format (Table, Csv or Markdown). CSV quotes cells as RFC 4180 says; csv and
// md keep every cell whole, in its column. The table form fits terminalColumns(): long names
// are elided in the middle ("…"), never below 16 characters; when that is not enough, the
// columns of dropFirst are left out in its order until the rest fits, and a note under the
// table names them and how to see them. Numbers are never cut, and prose columns are printed
// under their row, wrapped.
void writeTable(std::ostream &out, const TextTable &table, Format format);

// Text for people below a table: wrapped to terminalColumns() in table form, as it is in
// the other formats. Writes a newline after it.
void writeText(std::ostream &out, const std::string &text, Format format);

// Bytes as a table shows them, "-1.5 MiB" (the sign, then formatBytes of the magnitude, as
// the GUI's tables); csv, md and json keep the raw count.
std::string bytesText(std::int64_t bytes, Format format);

// A number with `decimals` digits after the point: "3.142".
std::string fixed(double value, int decimals = 3);

// Tensor shapes as a table cell: "[1x3x224x224], [1x1000]".
std::string shapesText(const std::vector<std::vector<std::int64_t>> &shapes);

// The width table output fits: $COLUMNS when set, else the terminal's width when standard
// output is one, else 80.
std::size_t terminalColumns();

// Writes json, pretty-printed with two spaces, and a newline.
void writeJson(std::ostream &out, const nlohmann::json &json);
// A confidence interval as [low, high], null without one.
nlohmann::json intervalJson(const std::optional<Interval> &interval);

// Prints "pyrometer-cli: MESSAGE" on stderr; returns kBadInput for `return badInput(...)`.
int badInput(const std::string &message);

} // namespace pyrometer::cli
