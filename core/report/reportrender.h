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
// GitHub-flavoured Markdown: pipe tables; images as data: URIs, or, with imageDirectory, as
// links to imageFileName(...) inside it (relative to the Markdown file).
std::string renderMarkdown(const Report &report, std::string_view imageDirectory = {});
// The file an image is written to beside a Markdown report: "image-03.svg" (its 1-based
// position among the report's images, the extension from its MIME type).
std::string imageFileName(const Image &image, std::size_t number);
std::string render(const Report &report, ReportFormat format);

// The format a file name asks for: .html/.htm or .md/.markdown; nullopt for anything else.
std::optional<ReportFormat> formatForPath(const std::filesystem::path &path);

// Renders and writes atomically (a temporary file renamed over path), so a reader never
// sees half a report. Markdown viewers (GitHub's among them) show no data: URIs, so a
// Markdown report's images go to files in "<name>_files/" beside it, written first.
Result<std::filesystem::path> writeReport(const Report &report, const std::filesystem::path &path, ReportFormat format);

std::string base64(std::string_view bytes);
// The start of a long name, cut at a character boundary, and an ellipsis: at most maxBytes
// bytes in all.
std::string elideName(const std::string &name, std::size_t maxBytes);
// A number with a fixed count of decimals, for table cells: fixed(3.14159, 2) is "3.14".
std::string fixed(double value, int decimals);
std::string escapeHtml(std::string_view text);

} // namespace pyrometer::report
