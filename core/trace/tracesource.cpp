#include "core/trace/tracesource.h"

#include "core/trace/byteinput.h"
#include "core/trace/loader.h"
#include "core/util/factoryname.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <system_error>

namespace pyrometer::trace {
namespace fs = std::filesystem;

namespace {

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

} // namespace

bool isTraceFileName(std::string_view fileName)
{
    return endsWith(fileName, ".json") || endsWith(fileName, ".json.gz");
}

InputKind classifyInput(const fs::path &path)
{
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        // "model.py:build": a Python file and the function in it that builds the model.
        if (const auto factory = parseFactoryName(path.string()); factory && fs::is_regular_file(factory->file, ec))
            return InputKind::Model;
        return InputKind::Missing;
    }
    if (fs::is_directory(status))
        return InputKind::LogDirectory;
    if (isTraceFileName(path.filename().string()))
        return InputKind::TraceFile;
    return InputKind::Model;
}

std::optional<TraceFileName> parseTraceFileName(std::string_view fileName)
{
    static constexpr std::string_view kSuffix = ".pt.trace.json";
    if (endsWith(fileName, ".gz"))
        fileName.remove_suffix(3);
    if (!endsWith(fileName, kSuffix))
        return std::nullopt;
    fileName.remove_suffix(kSuffix.size());

    TraceFileName parts;
    const auto dot = fileName.rfind('.');
    if (dot != std::string_view::npos && dot + 1 < fileName.size() && dot > 0) {
        const auto tail = fileName.substr(dot + 1);
        constexpr std::size_t kTimeDigits = 10; // seconds since 1970 have 10 digits since 2001
        if (tail.size() >= kTimeDigits &&
            std::all_of(tail.begin(), tail.end(), [](unsigned char c) { return std::isdigit(c); })) {
            parts.span = std::string(tail);
            fileName = fileName.substr(0, dot);
        }
    }
    if (fileName.empty())
        return std::nullopt;
    parts.worker = std::string(fileName);
    return parts;
}

namespace {

// Up to kHead bytes from the start of file, inflated when it is gzip; empty when unreadable.
std::string readHead(const fs::path &file)
{
    constexpr std::size_t kHead = 256 * 1024;
    auto input = ByteInput::open(file);
    if (!input.ok())
        return {};
    std::string head(kHead, '\0');
    std::size_t got = 0;
    while (got < kHead) {
        const auto n = input.value()->read(head.data() + got, kHead - got);
        if (n == 0)
            break;
        got += n;
    }
    head.resize(got);
    return head;
}

} // namespace

bool looksLikeTrace(const fs::path &file)
{
    const auto head = readHead(file);
    const auto first = head.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return false;
    if (head[first] == '{')
        return head.find("\"traceEvents\"") != std::string::npos;
    return head[first] == '[' && head.find("\"ph\"") != std::string::npos;
}

bool peekDistributedInfo(const fs::path &file, DistributedInfo &info)
{
    const auto head = readHead(file);
    const auto key = head.find("\"distributedInfo\"");
    const auto open = key == std::string::npos ? key : head.find('{', key);
    if (open == std::string::npos)
        return false;
    // Its object ends at the brace that balances the first (its strings hold no braces).
    std::size_t close = open, depth = 0;
    for (; close < head.size(); ++close) {
        depth += head[close] == '{';
        depth -= head[close] == '}';
        if (depth == 0)
            break;
    }
    if (close >= head.size())
        return false;
    return parseDistributedInfo(std::string_view(head).substr(open, close - open + 1), info);
}

std::optional<std::int64_t> spanTimeNs(std::string_view span)
{
    if (span.empty() || !std::all_of(span.begin(), span.end(), [](unsigned char c) { return std::isdigit(c); }))
        return std::nullopt;
    std::int64_t scale = 0;
    switch (span.size()) {
    case 10: scale = 1'000'000'000; break;
    case 13: scale = 1'000'000; break;
    case 16: scale = 1'000; break;
    case 19: scale = 1; break;
    default: return std::nullopt;
    }
    std::int64_t value = 0;
    for (const char c : span) {
        if (value > (INT64_MAX - 9) / 10)
            return std::nullopt;
        value = value * 10 + (c - '0');
    }
    if (value > INT64_MAX / scale)
        return std::nullopt;
    return value * scale;
}

std::vector<LogRun> discoverRuns(const fs::path &logDir)
{
    auto rootName = logDir.filename().string();
    if (rootName.empty() || rootName == ".")
        rootName = fs::absolute(logDir).lexically_normal().parent_path().filename().string();
    if (rootName.empty())
        rootName.assign(1, '/');
    std::map<std::string, LogRun> runs;
    std::error_code ec;
    fs::recursive_directory_iterator it(logDir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code typeError;
        if (!it->is_regular_file(typeError))
            continue;
        const auto fileName = it->path().filename().string();
        auto parts = parseTraceFileName(fileName);
        if (!parts) {
            if (!isTraceFileName(fileName) || !looksLikeTrace(it->path()))
                continue;
            auto worker = std::string_view(fileName);
            worker.remove_suffix(endsWith(worker, ".gz") ? 8 : 5); // ".json.gz" or ".json"
            parts = TraceFileName{std::string(worker), {}};
        }
        auto name = it->path().parent_path().lexically_relative(logDir).generic_string();
        if (name.empty() || name == ".")
            name = rootName;
        auto &run = runs[name];
        run.name = name;
        run.files.push_back({parts->worker, parts->span, it->path()});
    }

    std::vector<LogRun> result;
    result.reserve(runs.size());
    for (auto &[name, run] : runs) {
        std::sort(run.files.begin(), run.files.end(), [](const RunFile &a, const RunFile &b) {
            return std::tie(a.worker, a.span) < std::tie(b.worker, b.span);
        });
        result.push_back(std::move(run));
    }
    return result;
}

std::vector<fs::path> listTraceFiles(const fs::path &logDir)
{
    std::vector<fs::path> files;
    for (const auto &run : discoverRuns(logDir))
        for (const auto &file : run.files)
            files.push_back(file.path);
    return files;
}

std::string noTracesMessage(const std::string &logDir)
{
    return logDir + ": no traces here (expected Chrome trace files: *.json or *.json.gz holding \"traceEvents\", "
                    "such as TensorBoard's <worker>[.<span>].pt.trace.json[.gz])";
}

} // namespace pyrometer::trace
