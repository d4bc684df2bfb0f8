// Makes a large, realistic trace by replicating a real fixture's events: each copy is shifted
// in time (ts + k * period), so tracks keep their nesting and the file grows linearly.
//   trace_bench_generate FIXTURE OUT.json TARGET_MB
#include "core/trace/jsonscan.h"

#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

std::string readAll(const char *path)
{
    gzFile file = gzopen(path, "rb"); // reads plain files too
    if (!file)
        return {};
    std::string text;
    char buffer[1 << 16];
    int n;
    while ((n = gzread(file, buffer, sizeof buffer)) > 0)
        text.append(buffer, static_cast<std::size_t>(n));
    gzclose(file);
    return text;
}

// Appends body with every "ts": value shifted by `shift` µs (integer part only: the decimals
// stay exactly as written).
void appendShifted(std::string &out, std::string_view body, long long shift)
{
    static constexpr std::string_view kKey = "\"ts\":";
    std::size_t position = 0;
    for (;;) {
        const auto hit = body.find(kKey, position);
        if (hit == std::string_view::npos) {
            out.append(body.substr(position));
            return;
        }
        auto i = hit + kKey.size();
        while (i < body.size() && body[i] == ' ')
            ++i;
        out.append(body.substr(position, i - position));
        auto j = i;
        while (j < body.size() && body[j] >= '0' && body[j] <= '9')
            ++j;
        if (j == i) {
            position = i;
            continue;
        }
        out += std::to_string(std::stoll(std::string(body.substr(i, j - i))) + shift);
        position = j;
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s FIXTURE OUT.json TARGET_MB\n", argv[0]);
        return 2;
    }
    const std::string text = readAll(argv[1]);
    const auto found = pyrometer::trace::jsonscan::findEventsArray(text, true);
    if (found.status != pyrometer::trace::jsonscan::EventsArray::Status::Found) {
        std::fprintf(stderr, "%s: no traceEvents array\n", argv[1]);
        return 2;
    }
    // The array body: from after '[' to the matching ']'.
    std::size_t last = 0, bad = 0;
    const std::string_view afterOpen = std::string_view(text).substr(found.open + 1);
    const auto close = pyrometer::trace::jsonscan::exactBoundary(afterOpen, afterOpen.size(), last, bad);
    std::size_t end = close;
    while (end != pyrometer::trace::jsonscan::npos && afterOpen[end] != ']') {
        const auto next = pyrometer::trace::jsonscan::exactBoundary(afterOpen.substr(end + 1), 0, last, bad);
        end = next == pyrometer::trace::jsonscan::npos ? next : end + 1 + next;
    }
    if (end == pyrometer::trace::jsonscan::npos) {
        std::fprintf(stderr, "%s: unterminated traceEvents array\n", argv[1]);
        return 2;
    }
    std::string_view body = afterOpen.substr(0, end);
    while (!body.empty() && pyrometer::trace::jsonscan::isSpace(body.back()))
        body.remove_suffix(1);
    const std::string head = text.substr(0, found.open + 1);
    const std::string tail = std::string(afterOpen.substr(end));
    const auto target = std::strtoull(argv[3], nullptr, 10) << 20;

    std::ofstream out(argv[2], std::ios::binary);
    out << head;
    std::string chunk;
    std::uint64_t written = head.size();
    const long long period = 10'000'000; // 10 s between copies
    for (long long copy = 0; written < target; ++copy) {
        chunk.clear();
        if (copy > 0)
            chunk += ",\n";
        appendShifted(chunk, body, copy * period);
        out << chunk;
        written += chunk.size();
    }
    out << "\n" << tail;
    std::printf("wrote %s: %.1f MB\n", argv[2], static_cast<double>(written) / 1e6);
    return 0;
}
