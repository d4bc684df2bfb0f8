#include "core/trace/tracesource.h"

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
    if (ec || !fs::exists(status))
        return InputKind::Missing;
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
        if (std::all_of(tail.begin(), tail.end(), [](unsigned char c) { return std::isdigit(c); })) {
            parts.span = std::string(tail);
            fileName = fileName.substr(0, dot);
        }
    }
    if (fileName.empty())
        return std::nullopt;
    parts.worker = std::string(fileName);
    return parts;
}

std::vector<LogRun> discoverRuns(const fs::path &logDir)
{
    std::map<std::string, LogRun> runs;
    std::error_code ec;
    fs::recursive_directory_iterator it(logDir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code typeError;
        if (!it->is_regular_file(typeError))
            continue;
        const auto parts = parseTraceFileName(it->path().filename().string());
        if (!parts)
            continue;
        auto name = it->path().parent_path().lexically_relative(logDir).generic_string();
        if (name.empty())
            name.assign(1, '.'); // not = ".": GCC 12 warns falsely (-Wrestrict) in release builds
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
    return logDir + ": no traces here (expected files named <worker>[.<span>].pt.trace.json[.gz])";
}

} // namespace pyrometer::trace
