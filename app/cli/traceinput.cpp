#include "app/cli/traceinput.h"

#include "app/cli/output.h"
#include "core/trace/tracesource.h"

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

} // namespace pyrometer::cli
