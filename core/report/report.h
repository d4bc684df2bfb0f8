#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pyrometer::report {

// A report as data: sections of paragraphs, tables and images, rendered to HTML or Markdown
// by reportrender.h. Whoever has something to say adds a section (a trace, a model run, and
// later the sweep and comparison pages), so the document knows nothing of where it came from.

inline constexpr std::size_t kNameChars = 80;

struct Table {
    std::string caption;
    std::vector<std::string> header;
    std::vector<bool> rightAligned; // per column; missing entries mean left
    std::vector<std::vector<std::string>> rows;
    // Per column: names (kernels run to hundreds of characters) longer than kNameChars are
    // elided when rendered, whole in the HTML cell's tooltip. Missing entries mean no.
    std::vector<bool> names;
    bool operator==(const Table &) const = default;
};

// An image to embed: "image/svg+xml" or "image/png", with its bytes (SVG text or PNG data).
struct Image {
    std::string caption;
    std::string mimeType;
    std::string data;
    int width = 0; // display size in CSS pixels; 0: natural size
    bool operator==(const Image &) const = default;
};

// Label and value pairs shown as a definition list ("Span: 1.23 s").
struct Fact {
    std::string label;
    std::string value;
    bool operator==(const Fact &) const = default;
};

struct Section {
    std::string id; // stable anchor: "summary", "steps", "ops", "kernels", "advice", "model", ...
    std::string title;
    int level = 2; // heading level: 2 for a section, 3 inside one
    std::vector<std::string> paragraphs;
    std::vector<Fact> facts;
    std::vector<Image> images;
    std::vector<Table> tables;
    bool operator==(const Section &) const = default;
};

struct Report {
    std::string title;
    std::string subtitle; // what was generated, and when
    std::vector<Section> sections;
    bool operator==(const Report &) const = default;
};

} // namespace pyrometer::report
