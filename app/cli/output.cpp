#include "app/cli/output.h"

#include "app/cli/commands.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>

namespace pyrometer::cli {

void addFormatOption(CLI::App &command, Format *format)
{
    static const std::map<std::string, Format> names{
        {"table", Format::Table}, {"csv", Format::Csv}, {"md", Format::Markdown}, {"json", Format::Json}};
    command.add_option("--format", *format, "Output format: table, csv, md or json")
        ->transform(CLI::CheckedTransformer(names, CLI::ignore_case))
        ->default_str("table");
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

// Display width of UTF-8 text: code points, not bytes (µ is two bytes, one column).
std::size_t displayWidth(const std::string &text)
{
    return std::size_t(std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

bool alignRight(const TextTable &table, std::size_t column)
{
    return column < table.rightAligned.size() && table.rightAligned[column];
}

} // namespace

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
    std::vector<std::size_t> widths(columns, 0);
    for (std::size_t c = 0; c < columns; ++c)
        widths[c] = displayWidth(table.header[c]);
    for (const auto &row : table.rows)
        for (std::size_t c = 0; c < std::min(columns, row.size()); ++c)
            widths[c] = std::max(widths[c], displayWidth(row[c]));
    const auto writeRow = [&](const std::vector<std::string> &row) {
        for (std::size_t c = 0; c < columns; ++c) {
            const std::string cell = c < row.size() ? row[c] : std::string();
            const std::string pad(widths[c] - displayWidth(cell), ' ');
            out << (c ? "  " : "") << (alignRight(table, c) ? pad + cell : (c + 1 < columns ? cell + pad : cell));
        }
        out << '\n';
    };
    writeRow(table.header);
    std::vector<std::string> rule;
    for (const auto width : widths)
        rule.emplace_back(width, '-');
    writeRow(rule);
    for (const auto &row : table.rows)
        writeRow(row);
}

void writeJson(std::ostream &out, const nlohmann::json &json)
{
    out << json.dump(2) << '\n';
}

int badInput(const std::string &message)
{
    std::fprintf(stderr, "pyrometer-cli: %s\n", message.c_str());
    return kBadInput;
}

} // namespace pyrometer::cli
