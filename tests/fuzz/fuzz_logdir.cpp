// libFuzzer target for opening a TensorBoard log folder (core/trace/tracesource.h: classifyInput,
// discoverRuns, listTraceFiles, peekDistributedInfo; analysis::ranksOfOneJob; then loadTrace of
// every trace found), as the window and the CLI open one. The input is cut at 0x1e bytes into
// up to six files, written into a fresh folder plugins/profile/RUN/; when it ends in 0x1e and
// one more byte, that byte picks the layout (else 0), so that a trace as it is is one input:
//   bits 0-2  the first file's name in kNames, the next files' the names after it
//   bit 3     the folder's own files beside plugins/ too (the first file at the top)
//   bit 4     files gzipped, their names ending .gz
//   bit 5     odd files named .gz but left plain (the loader refuses them by content)
//   bit 6     files alternate between two runs
//   bit 7     the odd things of a folder: an empty trace, a folder named like a trace, a
//             dangling link, a link to the first file, a link back up (not followed)
// Any bytes must give runs and traces or Errors with a message, never a crash, a hang or
// unbounded memory.
//   seeds: fixture traces as they are (one file each), tests/fixtures/fuzz/logdir (several)
#include "core/analysis/job.h"
#include "core/trace/loader.h"
#include "core/trace/tracesource.h"
#include "tests/fuzz/fuzzfiles.h"

#include <zlib.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

using namespace pyrometer;
namespace fs = std::filesystem;

namespace {

constexpr std::array<std::string_view, 8> kNames{
    "worker0.1623143089861.pt.trace.json", // TensorBoard's, a span in milliseconds
    "worker0.1623143566756.pt.trace.json", // the same worker, a later span
    "rank-0.json",                         // any .json: a trace by its first bytes
    "rank-1.json",
    "host_1234.5678.pt.trace.json",           // a short number: part of the worker's name
    "node.1700000000123456789.pt.trace.json", // a span in nanoseconds
    ".pt.trace.json",                         // no worker: judged by its first bytes
    "notes",                                  // not a trace's name
};
constexpr std::size_t kMaxFiles = 6;
constexpr char kSeparator = '\x1e';

std::string gzipped(std::string_view bytes)
{
    z_stream stream{};
    if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        fuzz::fail("deflateInit2");
    std::string out(deflateBound(&stream, static_cast<uLong>(bytes.size())) + 32, '\0');
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.data()));
    stream.avail_in = static_cast<uInt>(bytes.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    if (deflate(&stream, Z_FINISH) != Z_STREAM_END)
        fuzz::fail("deflate");
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

// Touches every slice's parent so that an inconsistent model shows under the sanitizers.
void touch(const trace::Trace &trace)
{
    std::uint64_t slices = 0;
    for (const auto &track : trace.tracks)
        for (std::uint32_t i = 0; i < track.size(); ++i)
            slices += track.parent[i].isValid() ? track.parent[i].value < track.size() : 1;
    if (slices != trace.sliceCount())
        fuzz::fail("a slice whose parent is not on its track");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    auto input = fuzz::asText(data, size);
    unsigned layout = 0;
    if (size >= 2 && input[size - 2] == kSeparator) {
        layout = data[size - 1];
        input.remove_suffix(2);
    }
    std::vector<std::string_view> parts;
    for (std::size_t from = 0;;) {
        const auto cut = parts.size() + 1 < kMaxFiles ? input.find(kSeparator, from) : std::string_view::npos;
        parts.push_back(input.substr(from, cut == std::string_view::npos ? std::string_view::npos : cut - from));
        if (cut == std::string_view::npos)
            break;
        from = cut + 1;
    }

    static const auto root = fuzz::scratchDir() / "log";
    std::error_code error;
    fs::remove_all(root, error);
    fs::create_directories(root, error);
    const auto runDir = [&](std::size_t i) {
        if ((layout & 0x08) && i == 0)
            return root;
        return root / "plugins" / "profile" / ((layout & 0x40) && i % 2 == 1 ? "run_b" : "run_a");
    };
    std::vector<fs::path> written;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        std::string name(kNames[((layout & 0x07) + i) % kNames.size()]);
        std::string bytes(parts[i]);
        if (layout & 0x10) {
            name += ".gz";
            bytes = gzipped(bytes);
        } else if ((layout & 0x20) && i % 2 == 1) {
            name += ".gz";
        }
        written.push_back(runDir(i) / name);
        fuzz::writeFile(written.back(), bytes);
    }
    if (layout & 0x80) {
        const auto run = runDir(1);
        fuzz::writeFile(run / "empty.pt.trace.json", {});
        fs::create_directories(run / "folder.pt.trace.json", error);
        fs::create_symlink(run / "missing.json", run / "gone.pt.trace.json", error);
        fs::create_symlink(written.front(), run / "link.pt.trace.json", error);
        fs::create_directory_symlink(root, run / "up", error);
    }

    if (trace::classifyInput(root) != trace::InputKind::LogDirectory)
        fuzz::fail("a folder is not a log directory");
    const auto runs = trace::discoverRuns(root);
    std::size_t files = 0;
    for (const auto &run : runs) {
        if (run.name.empty() || run.files.empty())
            fuzz::fail("a run without a name or files");
        files += run.files.size();
    }
    if (trace::listTraceFiles(root).size() != files)
        fuzz::fail("listTraceFiles and discoverRuns disagree");
    if (runs.empty()) {
        if (trace::noTracesMessage(root.string()).empty())
            fuzz::fail("no message for a folder without traces");
        return 0;
    }

    std::vector<fs::path> first;
    for (const auto &file : runs.front().files)
        first.push_back(file.path);
    (void)analysis::ranksOfOneJob(first);

    trace::LoadOptions options;
    options.parserThreads = 0;
    for (const auto &run : runs) {
        for (const auto &file : run.files) {
            if (file.worker.empty())
                fuzz::fail("a trace without a worker name");
            (void)trace::spanTimeNs(file.span);
            trace::DistributedInfo info;
            (void)trace::peekDistributedInfo(file.path, info);
            const auto loaded = trace::loadTrace(file.path, options);
            if (fuzz::checkResult(loaded))
                touch(*loaded.value());
        }
    }
    return 0;
}
