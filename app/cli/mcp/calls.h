#pragma once
// What the server's calls share: the call itself, its documents, running a subcommand in it, and
// the shapes of a tool's result.
#include "app/cli/callcontext.h"
#include "app/cli/mcp/server.h"
#include "app/cli/mcp/store.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace pyrometer::cli::mcp {

// A request under way on the pool.
struct Server::Call {
    nlohmann::json id;
    std::string key; // id.dump()
    nlohmann::json progressToken;
    StopToken stop;
};

// A protocol error (unknown tool, resource not found): the JSON-RPC error of the request.
struct RpcError {
    int code;
    std::string message;
};

inline constexpr int kResourceNotFound = -32002;
inline const std::string kUriPrefix = "pyrometer://documents/";

// The error for a handle that names no open document.
std::string notOpenText(const std::string &handle);

// A tool's result of one text, an error or not.
nlohmann::json textResult(const std::string &text, bool isError);
nlohmann::json toolError(const std::string &text);

// The documents one call reads: those its handles name, kept alive until it ends.
class CallDocuments : public LoadedDocuments {
public:
    void add(std::shared_ptr<const Document> document) { m_documents.push_back(std::move(document)); }
    // The call's document of this handle, or null.
    const Document *byHandle(const std::string &handle) const;

    std::optional<AnalysisInput> trace(const std::string &path) const override;
    std::shared_ptr<const snapshot::Snapshot> snapshot(const std::string &path) const override;
    std::optional<analysis::JobFigures> job(const std::vector<std::string> &paths) const override;

private:
    std::vector<std::shared_ptr<const Document>> m_documents;
};

struct CommandRun {
    int exitCode = 0;
    std::string out;
    std::string err;
};

// Runs a subcommand in this thread with the call's streams, documents and cancel.
CommandRun runIn(const std::vector<std::string> &arguments, const LoadedDocuments &documents, const StopToken &stop);

// A subcommand's JSON document (an object; another value under "result"), or, as the second
// alternative, the tool error its messages make.
std::variant<nlohmann::json, nlohmann::json> commandJson(const CommandRun &run, const std::string &what);

// A tool's answer: the summary text, then the JSON as text, and the JSON as structured content.
// JSON longer than maxBytes (compact) has every list at any depth cut to its first N items, N
// the largest power of two, 512 at most, that fits (or 1), and the text and a "truncated" field
// say so: an agent gets a bounded answer and learns how to narrow it.
nlohmann::json jsonResult(std::string text, nlohmann::json structured, std::size_t maxBytes);

// Messages as one text, without trailing blank lines.
std::string trimmed(std::string text);

} // namespace pyrometer::cli::mcp
