#pragma once

#include "core/report/report.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/util/result.h"

namespace pyrometer::report {

enum class ReportFormat { Html, Markdown };

// One self-contained HTML page: inline CSS, images as data: URIs, nothing fetched.
std::string renderHtml(const Report &report);
// GitHub-flavoured Markdown: pipe tables, images as data: URIs.
std::string renderMarkdown(const Report &report);
std::string render(const Report &report, ReportFormat format);

// The format a file name asks for: .html/.htm or .md/.markdown; nullopt for anything else.
std::optional<ReportFormat> formatForPath(const std::filesystem::path &path);

// Renders and writes atomically (a temporary file renamed over path), so a reader never
// sees half a report.
Result<std::filesystem::path> writeReport(const Report &report, const std::filesystem::path &path, ReportFormat format);

std::string base64(std::string_view bytes);
// A number with a fixed count of decimals, for table cells: fixed(3.14159, 2) is "3.14".
std::string fixed(double value, int decimals);
std::string escapeHtml(std::string_view text);

} // namespace pyrometer::report
