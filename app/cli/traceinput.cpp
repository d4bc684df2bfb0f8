#include "app/cli/traceinput.h"
#include "app/cli/callcontext.h"

#include "app/cli/output.h"
#include "core/trace/tracesource.h"
#include "core/util/format.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <set>
#include <utility>

namespace pyrometer::cli {

std::optional<std::vector<std::filesystem::path>> resolveTraceInput(const std::string &path)
{
    const std::filesystem::path input = path;
    switch (trace::classifyInput(input)) {
    case trace::InputKind::Missing:
        badInput(path + ": no such file or directory");
        return std::nullopt;
    case trace::InputKind::LogDirectory: {
        auto files = trace::listTraceFiles(input);
        if (files.empty()) {
            badInput(trace::noTracesMessage(path));
            return std::nullopt;
        }
        return files;
    }
    case trace::InputKind::TraceFile:
    case trace::InputKind::Model: // any other name: the loader judges the content
        break;
    }
    return std::vector<std::filesystem::path>{input};
}

namespace {

// Spans are times: the longer number is the later one, and equal lengths compare as text.
bool olderSpan(const trace::RunFile &a, const trace::RunFile &b)
{
    return std::pair(a.span.size(), a.span) < std::pair(b.span.size(), b.span);
}

} // namespace

std::optional<std::filesystem::path> pickTraceFile(const std::string &path)
{
    const std::filesystem::path input = path;
    if (trace::classifyInput(input) != trace::InputKind::LogDirectory) {
        auto files = resolveTraceInput(path);
        return files ? std::optional(files->front()) : std::nullopt;
    }
    const auto runs = trace::discoverRuns(input);
    if (runs.empty()) {
        badInput(trace::noTracesMessage(path));
        return std::nullopt;
    }
    const auto &run = runs.front();
    const auto &worker = run.files.front().worker;
    std::vector<trace::RunFile> spans;
    std::copy_if(run.files.begin(), run.files.end(), std::back_inserter(spans), [&](const trace::RunFile &f) { return f.worker == worker; });
    const auto picked = *std::max_element(spans.begin(), spans.end(), olderSpan);
    std::set<std::string> workers;
    for (const auto &f : run.files)
        workers.insert(f.worker);
    std::string why = "run '" + run.name + "'" + (runs.size() > 1 ? ", the first of " + countOf(std::int64_t(runs.size()), "run") : "");
    if (workers.size() > 1)
        why += "; worker " + worker + ", the first of " + std::to_string(workers.size());
    if (spans.size() > 1)
        why += "; the newest of " + countOf(std::int64_t(spans.size()), "span");
    cliErr() << "pyrometer-cli: reading " << picked.path.lexically_relative(input).generic_string() << " (" << why
             << ")\n";
    return picked.path;
}

} // namespace pyrometer::cli
