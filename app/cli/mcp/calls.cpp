#include "app/cli/mcp/calls.h"

#include "app/cli/commands.h"

#include <sstream>

namespace pyrometer::cli::mcp {

nlohmann::json textResult(const std::string &text, bool isError)
{
    return {{"content", nlohmann::json::array({{{"type", "text"}, {"text", text}}})}, {"isError", isError}};
}

nlohmann::json toolError(const std::string &text)
{
    return textResult(text, true);
}

std::string trimmed(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

std::optional<AnalysisInput> CallDocuments::trace(const std::string &path) const
{
    for (const auto &d : m_documents)
        if (d->kind == DocKind::Trace && d->path == path)
            return d->trace;
    return std::nullopt;
}

std::shared_ptr<const snapshot::Snapshot> CallDocuments::snapshot(const std::string &path) const
{
    for (const auto &d : m_documents)
        if (d->kind == DocKind::Snapshot && d->path == path)
            return d->snapshot;
    return nullptr;
}

std::optional<analysis::JobFigures> CallDocuments::job(const std::vector<std::string> &paths) const
{
    for (const auto &d : m_documents)
        if (d->kind == DocKind::Job && d->paths == paths)
            return *d->job;
    return std::nullopt;
}

CommandRun runIn(const std::vector<std::string> &arguments, const LoadedDocuments &documents, const StopToken &stop)
{
    std::ostringstream out;
    std::ostringstream err;
    const CallContext context{&out, &err, &documents, stop};
    const ScopedCallContext scope(context);
    CommandRun run;
    run.exitCode = runCommand(arguments);
    run.out = out.str();
    run.err = err.str();
    return run;
}

std::variant<nlohmann::json, nlohmann::json> commandJson(const CommandRun &run, const std::string &what)
{
    if (run.exitCode == kBadInput || run.out.empty())
        return std::variant<nlohmann::json, nlohmann::json>(
            std::in_place_index<1>, toolError(run.err.empty() ? what + " failed" : trimmed(run.err)));
    auto json = nlohmann::json::parse(run.out, nullptr, false);
    if (json.is_discarded())
        return std::variant<nlohmann::json, nlohmann::json>(std::in_place_index<1>,
                                                            toolError(what + " wrote no JSON document"));
    if (!json.is_object())
        json = nlohmann::json{{"result", std::move(json)}};
    return std::variant<nlohmann::json, nlohmann::json>(std::in_place_index<0>, std::move(json));
}

} // namespace pyrometer::cli::mcp
