#include "core/report/reportrender.h"

#include "core/util/atomicfile.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace pyrometer::report {
namespace {

// Light and dark alike: the page follows the reader's colour scheme.
constexpr std::string_view kStyle = R"(
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e; --line: #d1d9e0; --head: #f6f8fa; --accent: #bf360c; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --head: #151b23; --accent: #ff8a50; } }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); max-width: 1100px; margin: 2em auto; padding: 0 1.5em; }
h1 { border-bottom: 3px solid var(--accent); padding-bottom: .2em; margin-bottom: .1em; }
h2 { border-bottom: 1px solid var(--line); padding-bottom: .2em; margin-top: 2em; }
.subtitle { color: var(--muted); margin-top: 0; }
nav { margin: 1em 0 2em; color: var(--muted); } nav a { color: var(--accent); text-decoration: none; }
table { border-collapse: collapse; margin: .6em 0 1.4em; font-size: 13px; max-width: 100%; }
caption { text-align: left; font-weight: 600; padding: .3em 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; vertical-align: top; }
td.name { overflow-wrap: anywhere; min-width: 14em; }
th { background: var(--head); text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; } td.num { white-space: nowrap; }
.table { overflow-x: auto; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 1.2em; }
dt { color: var(--muted); } dd { margin: 0; }
figure { margin: 1em 0; } figcaption { color: var(--muted); font-size: 13px; }
figure img { max-width: 100%; height: auto; background: #ffffff; border: 1px solid var(--line); border-radius: 4px; }
footer { color: var(--muted); font-size: 12px; margin-top: 3em; border-top: 1px solid var(--line); padding-top: .5em; }
)";

bool rightAligned(const Table &table, std::size_t column)
{
    return column < table.rightAligned.size() && table.rightAligned[column];
}

bool isName(const Table &table, std::size_t column)
{
    return column < table.names.size() && table.names[column];
}

// A relative path as a Markdown link destination: blanks and parentheses percent-encoded.
std::string linkPath(std::string_view path)
{
    std::string link;
    for (const char c : path) {
        if (c == ' ')
            link += "%20";
        else if (c == '(')
            link += "%28";
        else if (c == ')')
            link += "%29";
        else
            link += c;
    }
    return link;
}

std::string dataUri(const Image &image)
{
    return "data:" + image.mimeType + ";base64," + base64(image.data);
}

void htmlTable(std::ostringstream &out, const Table &table)
{
    // A table too wide for a narrow window scrolls in its box, not the page.
    out << "<div class=\"table\"><table>\n";
    if (!table.caption.empty())
        out << "<caption>" << escapeHtml(table.caption) << "</caption>\n";
    out << "<thead><tr>";
    for (std::size_t c = 0; c < table.header.size(); ++c)
        out << (rightAligned(table, c) ? "<th class=\"num\">" : "<th>") << escapeHtml(table.header[c]) << "</th>";
    out << "</tr></thead>\n<tbody>\n";
    for (const auto &row : table.rows) {
        out << "<tr>";
        for (std::size_t c = 0; c < row.size(); ++c) {
            // Names wrap anywhere (a kernel's has few spaces); long ones are elided, whole in the tooltip.
            if (isName(table, c)) {
                const bool elided = row[c].size() > kNameChars;
                out << "<td class=\"name\"" << (elided ? " title=\"" + escapeHtml(row[c]) + "\"" : std::string()) << ">"
                    << escapeHtml(elided ? elideName(row[c], kNameChars) : row[c]) << "</td>";
                continue;
            }
            out << (rightAligned(table, c) ? "<td class=\"num\">" : "<td>") << escapeHtml(row[c]) << "</td>";
        }
        out << "</tr>\n";
    }
    out << "</tbody>\n</table></div>\n";
}

// A Markdown table cell: pipes escaped, line breaks flattened.
std::string markdownCell(std::string_view text)
{
    std::string cell;
    for (const char c : text) {
        if (c == '|')
            cell += "\\|";
        else if (c == '\n' || c == '\r')
            cell += ' ';
        else
            cell += c;
    }
    return cell;
}

void markdownTable(std::ostringstream &out, const Table &table)
{
    if (!table.caption.empty())
        out << "**" << table.caption << "**\n\n";
    out << "|";
    for (const auto &cell : table.header)
        out << ' ' << markdownCell(cell) << " |";
    out << "\n|";
    for (std::size_t c = 0; c < table.header.size(); ++c)
        out << (rightAligned(table, c) ? " ---: |" : " --- |");
    out << "\n";
    for (const auto &row : table.rows) {
        out << "|";
        for (std::size_t c = 0; c < row.size(); ++c)
            out << ' ' << markdownCell(isName(table, c) ? elideName(row[c], kNameChars) : row[c]) << " |";
        out << "\n";
    }
    out << "\n";
}

} // namespace

std::string base64(std::string_view bytes)
{
    static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const auto n = std::uint32_t(std::uint8_t(bytes[i])) << 16 | std::uint32_t(std::uint8_t(bytes[i + 1])) << 8 |
                       std::uint32_t(std::uint8_t(bytes[i + 2]));
        out += alphabet[n >> 18 & 63];
        out += alphabet[n >> 12 & 63];
        out += alphabet[n >> 6 & 63];
        out += alphabet[n & 63];
    }
    if (const auto rest = bytes.size() - i; rest > 0) {
        std::uint32_t n = std::uint32_t(std::uint8_t(bytes[i])) << 16;
        if (rest == 2)
            n |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
        out += alphabet[n >> 18 & 63];
        out += alphabet[n >> 12 & 63];
        out += rest == 2 ? alphabet[n >> 6 & 63] : '=';
        out += '=';
    }
    return out;
}

std::string elideName(const std::string &name, std::size_t maxBytes)
{
    if (name.size() <= maxBytes)
        return name;
    std::size_t cut = maxBytes > 3 ? maxBytes - 3 : 0; // room for the ellipsis, three bytes in UTF-8
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
        --cut; // not inside a UTF-8 sequence
    return name.substr(0, cut) + "\xE2\x80\xA6";
}

std::string fixed(double value, int decimals)
{
    std::array<char, 48> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
    return buffer.data();
}

std::string escapeHtml(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string renderHtml(const Report &report)
{
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        << "<meta name=\"generator\" content=\"Pyrometer\">\n"
        << "<title>" << escapeHtml(report.title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
    out << "<h1>" << escapeHtml(report.title) << "</h1>\n";
    if (!report.subtitle.empty())
        out << "<p class=\"subtitle\">" << escapeHtml(report.subtitle) << "</p>\n";
    out << "<nav>";
    bool firstLink = true;
    for (const auto &section : report.sections) {
        if (section.level > 2)
            continue;
        out << (firstLink ? "" : " &middot; ") << "<a href=\"#" << escapeHtml(section.id) << "\">" << escapeHtml(section.title)
            << "</a>";
        firstLink = false;
    }
    out << "</nav>\n";
    for (const auto &section : report.sections) {
        const int level = std::clamp(section.level, 2, 4);
        out << "<section id=\"" << escapeHtml(section.id) << "\">\n<h" << level << ">" << escapeHtml(section.title) << "</h"
            << level << ">\n";
        for (const auto &paragraph : section.paragraphs)
            out << "<p>" << escapeHtml(paragraph) << "</p>\n";
        if (!section.facts.empty()) {
            out << "<dl>\n";
            for (const auto &fact : section.facts)
                out << "<dt>" << escapeHtml(fact.label) << "</dt><dd>" << escapeHtml(fact.value) << "</dd>\n";
            out << "</dl>\n";
        }
        for (const auto &image : section.images) {
            out << "<figure><img src=\"" << dataUri(image) << "\" alt=\"" << escapeHtml(image.caption) << "\"";
            if (image.width > 0)
                out << " width=\"" << image.width << "\"";
            out << "><figcaption>" << escapeHtml(image.caption) << "</figcaption></figure>\n";
        }
        for (const auto &table : section.tables)
            htmlTable(out, table);
        out << "</section>\n";
    }
    out << "<footer>Generated by Pyrometer.</footer>\n</body>\n</html>\n";
    return out.str();
}

std::string imageFileName(const Image &image, std::size_t number)
{
    const std::string extension = image.mimeType == "image/svg+xml" ? ".svg"
                                  : image.mimeType == "image/png"   ? ".png"
                                  : image.mimeType == "image/jpeg"  ? ".jpg"
                                                                    : ".bin";
    const auto digits = std::to_string(number);
    return "image-" + std::string(digits.size() < 2 ? 2 - digits.size() : 0, '0') + digits + extension;
}

std::string renderMarkdown(const Report &report, std::string_view imageDirectory)
{
    std::size_t images = 0;
    std::ostringstream out;
    out << "# " << report.title << "\n\n";
    if (!report.subtitle.empty())
        out << "_" << report.subtitle << "_\n\n";
    for (const auto &section : report.sections) {
        out << std::string(std::size_t(std::clamp(section.level, 2, 4)), '#') << ' ' << section.title << "\n\n";
        for (const auto &paragraph : section.paragraphs)
            out << paragraph << "\n\n";
        for (const auto &fact : section.facts)
            out << "- **" << fact.label << ":** " << fact.value << "\n";
        if (!section.facts.empty())
            out << "\n";
        for (const auto &image : section.images) {
            ++images;
            const auto target = imageDirectory.empty() ? dataUri(image) : linkPath(std::string(imageDirectory) + "/" + imageFileName(image, images));
            out << "![" << image.caption << "](" << target << ")\n\n";
        }
        for (const auto &table : section.tables)
            markdownTable(out, table);
    }
    return out.str();
}

std::string render(const Report &report, ReportFormat format)
{
    return format == ReportFormat::Html ? renderHtml(report) : renderMarkdown(report);
}

std::optional<ReportFormat> formatForPath(const std::filesystem::path &path)
{
    std::string extension = path.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (extension == ".html" || extension == ".htm")
        return ReportFormat::Html;
    if (extension == ".md" || extension == ".markdown")
        return ReportFormat::Markdown;
    return std::nullopt;
}

Result<std::filesystem::path> writeReport(const Report &report, const std::filesystem::path &path, ReportFormat format)
{
    if (format == ReportFormat::Html)
        return writeFileAtomically(path, renderHtml(report));
    const std::string directory = path.stem().string() + "_files";
    std::size_t images = 0;
    for (const auto &section : report.sections) {
        for (const auto &image : section.images) {
            if (images++ == 0) {
                std::error_code error;
                std::filesystem::create_directories(path.parent_path() / directory, error);
                if (error)
                    return Error{(path.parent_path() / directory).string() + ": cannot create the image folder: " + error.message()};
            }
            auto written = writeFileAtomically(path.parent_path() / directory / imageFileName(image, images), image.data);
            if (!written.ok())
                return written.error();
        }
    }
    return writeFileAtomically(path, renderMarkdown(report, images > 0 ? std::string_view(directory) : std::string_view()));
}

} // namespace pyrometer::report
