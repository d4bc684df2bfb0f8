#include "app/cli/mcp/calls.h"

#include "app/cli/commands.h"

#include <algorithm>
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

namespace {

std::size_t longestList(const nlohmann::json &value)
{
    std::size_t longest = value.is_array() ? value.size() : 0;
    if (value.is_structured())
        for (const auto &item : value)
            longest = std::max(longest, longestList(item));
    return longest;
}

void cutLists(nlohmann::json &value, std::size_t keep)
{
    if (value.is_array() && value.size() > keep)
        value.erase(value.begin() + static_cast<std::ptrdiff_t>(keep), value.end());
    if (value.is_structured())
        for (auto &item : value)
            cutLists(item, keep);
}

std::string compact(const nlohmann::json &value)
{
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

nlohmann::json jsonResult(std::string text, nlohmann::json structured, std::size_t maxBytes)
{
    auto json = compact(structured);
    if (json.size() > maxBytes) {
        const auto whole = json.size();
        std::size_t keep = std::min<std::size_t>(512, std::max<std::size_t>(1, longestList(structured) / 2));
        nlohmann::json cut;
        for (;; keep = std::max<std::size_t>(1, keep / 2)) {
            cut = structured;
            cutLists(cut, keep);
            json = compact(cut);
            if (json.size() <= maxBytes || keep == 1)
                break;
        }
        cut["truncated"] = {{"json_bytes", whole}, {"items_kept", keep}};
        json = compact(cut);
        structured = std::move(cut);
        text += "\nThe whole answer is " + std::to_string(whole) + " bytes of JSON, past the " +
                std::to_string(maxBytes) + " a result carries here: each list is cut to its first " +
                std::to_string(keep) + (keep == 1 ? " item" : " items") +
                ". Narrow it with the tool's top, range or step, or run pyrometer-cli for all of it.";
    }
    auto result = textResult(text, false);
    result["content"].push_back({{"type", "text"}, {"text", std::move(json)}});
    result["structuredContent"] = std::move(structured);
    return result;
}

std::string trimmed(std::string text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

std::string notOpenText(const std::string &handle)
{
    return "no open document " + handle + " (never opened, or closed): open it again";
}

const Document *CallDocuments::byHandle(const std::string &handle) const
{
    for (const auto &d : m_documents)
        if (d->handle == handle)
            return d.get();
    return nullptr;
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
