#include "app/cli/output.h"
#include "app/cli/callcontext.h"

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/textwrap.h"
#include "core/util/format.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <iomanip>
#include <string_view>

#include <sys/ioctl.h>
#include <unistd.h>

namespace pyrometer::cli {

void addFormatOption(CLI::App &command, Format *format)
{
    addChoiceOption<Format>(command, "--format", *format,
                            {{"table", Format::Table}, {"csv", Format::Csv}, {"md", Format::Markdown}, {"json", Format::Json}},
                            "Output format");
}

namespace {

std::string csvCell(const std::string &cell)
{
    if (cell.find_first_of(",\"\n\r") == std::string::npos)
        return cell;
    std::string quoted = "\"";
    for (const char c : cell) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

std::string markdownCell(const std::string &cell)
{
    std::string escaped;
    for (const char c : cell) {
        if (c == '|')
            escaped += '\\';
        escaped += c;
    }
    return escaped;
}

bool alignRight(const TextTable &table, std::size_t column)
{
    return column < table.rightAligned.size() && table.rightAligned[column];
}

// Whether the terminal takes UTF-8, as the C library would decide from the environment
// (LC_ALL, then LC_CTYPE, then LANG): where it does not, "…" prints as three characters and
// widens every elided row by two columns.
bool terminalTakesUtf8()
{
    for (const char *name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
        const char *value = std::getenv(name);
        if (!value || !*value)
            continue;
        std::string lower(value);
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return lower.find("utf-8") != std::string::npos || lower.find("utf8") != std::string::npos;
    }
    return false;
}

// text in at most width columns: the start and the end kept, "…" ("..." where the terminal
// does not take UTF-8) in the middle, where a kernel's or operator's distinguishing parts
// usually are at both ends.
std::string elideMiddle(const std::string &text, std::size_t width)
{
    const auto length = displayWidth(text);
    if (length <= width || width == 0)
        return text;
    static const bool utf8 = terminalTakesUtf8();
    const std::string mark = utf8 ? "…" : "...";
    const std::size_t markWidth = utf8 ? 1 : 3;
    if (width <= markWidth)
        return text.substr(0, byteOffsetOf(text, width));
    const auto kept = width - markWidth;
    const auto head = (kept + 1) / 2;
    const auto tail = kept - head;
    return text.substr(0, byteOffsetOf(text, head)) + mark + text.substr(byteOffsetOf(text, length - tail));
}

// Names narrower than this are never elided further: a table wider than the terminal is
// better than names nobody can tell apart.
constexpr std::size_t kMinimumNameWidth = 16;

// Narrows the left-aligned (name) columns, widest first, until the table fits maxWidth or
// every name column is at its minimum. Number columns keep their width.
void fitWidths(std::vector<std::size_t> &widths, const std::vector<std::size_t> &minimums, const std::vector<bool> &right, std::size_t maxWidth)
{
    std::size_t total = widths.empty() ? 0 : 2 * (widths.size() - 1);
    for (const auto width : widths)
        total += width;
    while (total > maxWidth) {
        std::size_t widest = widths.size();
        for (std::size_t c = 0; c < widths.size(); ++c)
            if (!right[c] && widths[c] > minimums[c] && (widest == widths.size() || widths[c] > widths[widest]))
                widest = c;
        if (widest == widths.size())
            return;
        --widths[widest];
        --total;
    }
}

bool isProse(const TextTable &table, std::size_t column)
{
    return column < table.prose.size() && table.prose[column];
}

void writeWrapped(std::ostream &out, const std::string &indent, const std::string &text, std::size_t width)
{
    const auto room = std::max<std::size_t>(20, width > indent.size() ? width - indent.size() : 0);
    for (const auto &line : wrapText(text, room))
        out << indent << line << '\n';
}

// The width of a grid of these columns with names at their narrowest.
std::size_t narrowestWidth(const std::vector<std::size_t> &minimums, const std::vector<bool> &kept)
{
    std::size_t total = 0, columns = 0;
    for (std::size_t g = 0; g < minimums.size(); ++g)
        if (kept[g]) {
            total += minimums[g];
            ++columns;
        }
    return total + (columns ? 2 * (columns - 1) : 0);
}

// The table form: a grid of the non-prose columns fitted to maxWidth, each row followed by its
// prose cells as "header: text", wrapped and indented; then a note on the columns left out.
void writeGrid(std::ostream &out, const TextTable &table, std::size_t maxWidth)
{
    std::vector<std::size_t> grid;
    for (std::size_t c = 0; c < table.header.size(); ++c)
        if (!isProse(table, c))
            grid.push_back(c);
    const auto cellOf = [](const std::vector<std::string> &row, std::size_t c) { return c < row.size() ? row[c] : std::string(); };
    std::vector<std::size_t> allWidths(grid.size(), 0);
    std::vector<std::size_t> allMinimums(grid.size(), 0);
    for (std::size_t g = 0; g < grid.size(); ++g) {
        allWidths[g] = displayWidth(table.header[grid[g]]);
        allMinimums[g] = std::max(allWidths[g], kMinimumNameWidth);
        for (const auto &row : table.rows)
            allWidths[g] = std::max(allWidths[g], displayWidth(cellOf(row, grid[g])));
        allMinimums[g] = alignRight(table, grid[g]) ? allWidths[g] : std::min(allMinimums[g], allWidths[g]);
    }
    // Leave out the least important columns until the rest fits with names at their narrowest.
    std::vector<bool> kept(grid.size(), true);
    std::vector<std::string> dropped;
    for (const auto &name : table.dropFirst) {
        if (narrowestWidth(allMinimums, kept) <= maxWidth)
            break;
        for (std::size_t g = 0; g < grid.size(); ++g)
            if (kept[g] && table.header[grid[g]] == name) {
                kept[g] = false;
                dropped.push_back(name);
                break;
            }
    }
    std::vector<std::size_t> shown, widths, minimums;
    std::vector<bool> right;
    for (std::size_t g = 0; g < grid.size(); ++g)
        if (kept[g]) {
            shown.push_back(grid[g]);
            widths.push_back(allWidths[g]);
            minimums.push_back(allMinimums[g]);
            right.push_back(alignRight(table, grid[g]));
        }
    const auto columns = shown.size();
    fitWidths(widths, minimums, right, maxWidth);
    const auto writeRow = [&](const std::vector<std::string> &row) {
        for (std::size_t g = 0; g < columns; ++g) {
            const std::string cell = elideMiddle(cellOf(row, shown[g]), widths[g]);
            const std::string pad(widths[g] - displayWidth(cell), ' ');
            out << (g ? "  " : "") << (right[g] ? pad + cell : (g + 1 < columns ? cell + pad : cell));
        }
        out << '\n';
    };
    writeRow(table.header);
    std::vector<std::string> rule(table.header.size());
    for (std::size_t g = 0; g < columns; ++g)
        rule[shown[g]] = std::string(widths[g], '-');
    writeRow(rule);
    for (const auto &row : table.rows) {
        writeRow(row);
        for (std::size_t c = 0; c < table.header.size(); ++c)
            if (isProse(table, c) && !cellOf(row, c).empty())
                writeWrapped(out, "    ", table.header[c] + ": " + cellOf(row, c), maxWidth);
    }
    if (dropped.empty())
        return;
    std::string names;
    for (const auto &name : dropped)
        names += (names.empty() ? "" : ", ") + name;
    const auto everything = narrowestWidth(allMinimums, std::vector<bool>(grid.size(), true));
    writeWrapped(out, "", "(not shown: " + names + "; COLUMNS=" + std::to_string(everything) + " or --format csv or json shows them)",
                 maxWidth);
}

} // namespace

std::size_t terminalColumns()
{
    if (const char *columns = std::getenv("COLUMNS")) {
        const std::string_view text(columns);
        std::size_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && value > 0)
            return value;
    }
    winsize size{};
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    return 80;
}

void writeTable(std::ostream &out, const TextTable &table, Format format)
{
    const auto columns = table.header.size();
    if (format == Format::Csv) {
        for (const auto *row : [&] {
                 std::vector<const std::vector<std::string> *> all{&table.header};
                 for (const auto &r : table.rows)
                     all.push_back(&r);
                 return all;
             }()) {
            for (std::size_t c = 0; c < row->size(); ++c)
                out << (c ? "," : "") << csvCell((*row)[c]);
            out << '\n';
        }
        return;
    }
    if (format == Format::Markdown) {
        out << '|';
        for (const auto &h : table.header)
            out << ' ' << markdownCell(h) << " |";
        out << "\n|";
        for (std::size_t c = 0; c < columns; ++c)
            out << (alignRight(table, c) ? "---:|" : "---|");
        out << '\n';
        for (const auto &row : table.rows) {
            out << '|';
            for (const auto &cell : row)
                out << ' ' << markdownCell(cell) << " |";
            out << '\n';
        }
        return;
    }
    // Cells may hold "…" of their own (a kernel's short name collapses templates to <…>): a
    // terminal without UTF-8 gets "..." there too.
    static const bool utf8 = terminalTakesUtf8();
    if (!utf8) {
        auto plain = table;
        for (auto &row : plain.rows)
            for (auto &cell : row)
                for (std::size_t at; (at = cell.find("\u2026")) != std::string::npos;)
                    cell.replace(at, std::string_view("\u2026").size(), "...");
        writeGrid(out, plain, terminalColumns());
        return;
    }
    writeGrid(out, table, terminalColumns());
}

void writeText(std::ostream &out, const std::string &text, Format format)
{
    if (format != Format::Table) {
        out << text << '\n';
        return;
    }
    writeWrapped(out, "", text, terminalColumns());
}

std::string fixed(double value, int decimals)
{
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string shapesText(const std::vector<std::vector<std::int64_t>> &shapes)
{
    std::string text;
    for (const auto &shape : shapes) {
        text += text.empty() ? "[" : ", [";
        for (std::size_t i = 0; i < shape.size(); ++i)
            text += (i ? "x" : "") + std::to_string(shape[i]);
        text += "]";
    }
    return text;
}

std::string bytesText(std::int64_t bytes, Format format)
{
    if (format != Format::Table)
        return std::to_string(bytes);
    const auto magnitude = bytes < 0 ? std::uint64_t(0) - std::uint64_t(bytes) : std::uint64_t(bytes);
    return (bytes < 0 ? "-" : "") + formatBytes(magnitude);
}

nlohmann::json intervalJson(const std::optional<Interval> &interval)
{
    return interval ? nlohmann::json{interval->low, interval->high} : nlohmann::json();
}

void writeJson(std::ostream &out, const nlohmann::json &json)
{
    out << json.dump(2) << '\n';
}

int badInput(const std::string &message)
{
    cliErr() << "pyrometer-cli: " << message << '\n';
    return kBadInput;
}

} // namespace pyrometer::cli
