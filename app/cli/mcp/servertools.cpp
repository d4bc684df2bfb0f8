// The server's tools and resources: opening documents, running subcommands on them, reports.
#include "app/cli/commands.h"
#include "app/cli/mcp/calls.h"
#include "app/cli/mcp/summaries.h"
#include "app/cli/traceinput.h"
#include "core/snapshot/reader.h"
#include "core/summary/jobsource.h"
#include "core/trace/loader.h"

#include <chrono>
#include <fstream>
#include <sstream>

namespace pyrometer::cli::mcp {
namespace {

std::uint64_t fileBytes(const std::filesystem::path &path)
{
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    return error ? 0 : size;
}

std::string canonicalPath(const std::filesystem::path &path)
{
    std::error_code error;
    const auto full = std::filesystem::weakly_canonical(path, error);
    return error ? path.string() : full.string();
}

// A model's file: the path itself, or FILE of FILE.py:factory.
std::filesystem::path modelFile(const std::string &path)
{
    std::error_code error;
    if (std::filesystem::exists(path, error))
        return path;
    const auto colon = path.rfind(':');
    return colon == std::string::npos ? path : path.substr(0, colon);
}

std::string readFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The report subcommand's command line for a document, written to file.
std::vector<std::string> reportLine(const Document &document, const std::filesystem::path &file)
{
    std::vector<std::string> line{"report"};
    if (document.kind == DocKind::Job) {
        line.push_back("--job");
        line.insert(line.end(), document.paths.begin(), document.paths.end());
    } else {
        line.push_back(document.path);
    }
    line.push_back("--output=" + file.string());
    return line;
}

} // namespace

nlohmann::json Server::open(Call &call, const Tool &tool, const nlohmann::json &arguments)
{
    auto document = std::make_shared<Document>();
    std::ostringstream out;
    std::ostringstream err;
    const CallDocuments none;
    const CallContext context{&out, &err, &none, call.stop};
    const ScopedCallContext scope(context);
    ProgressReporter reporter([this, &call](int permille) { progress(call, permille, "loading"); });
    const auto started = std::chrono::steady_clock::now();
    const auto failed = [&err](const std::string &message) {
        const auto said = trimmed(err.str());
        return toolError(said.empty() ? message : said);
    };
    if (tool.command == "trace") {
        const auto source = arguments["path"].get<std::string>();
        const auto file = pickTraceFile(source);
        if (!file)
            return failed(source + ": cannot be read");
        trace::LoadOptions options;
        options.partial = arguments.value("partial", false);
        auto loaded = trace::loadTrace(*file, options, reporter, call.stop);
        if (!loaded.ok())
            return toolError(loaded.error().message);
        document->kind = DocKind::Trace;
        document->source = source;
        document->path = canonicalPath(*file);
        document->trace.trace = loaded.value();
        document->trace.index = analysis::buildTraceIndex(*document->trace.trace);
        // The index holds about as much again as the trace's columns.
        document->bytes = 2 * document->trace.trace->memoryBytes();
    } else if (tool.command == "snapshot") {
        const auto source = arguments["path"].get<std::string>();
        auto loaded = snapshot::loadSnapshot(source, reporter, call.stop);
        if (!loaded.ok())
            return toolError(loaded.error().message);
        document->kind = DocKind::Snapshot;
        document->source = source;
        document->path = canonicalPath(source);
        document->snapshot = loaded.value();
        // What the reader keeps is about half a plain pickle (tests/bench/snapshot_bench).
        const auto file = fileBytes(source);
        document->bytes = source.size() > 3 && source.substr(source.size() - 3) == ".gz" ? 2 * file : file / 2;
    } else if (tool.command == "job") {
        std::vector<std::filesystem::path> paths;
        for (const auto &p : arguments["paths"])
            paths.emplace_back(p.get<std::string>());
        if (paths.empty())
            return toolError("open_job needs at least one path");
        const auto files = analysis::jobFiles(paths);
        if (!files.ok())
            return toolError(files.error().message);
        analysis::JobOptions options;
        options.threads = arguments.value("threads", 0);
        auto job = summary::loadJob(files.value(), options, reporter, call.stop);
        if (!job.ok())
            return toolError(job.error().message);
        document->kind = DocKind::Job;
        for (const auto &p : paths)
            document->paths.push_back(canonicalPath(p));
        document->path = document->paths.front();
        document->source = paths.front().string();
        document->job = std::make_shared<const analysis::JobFigures>(std::move(job.value()));
        document->bytes = (std::uint64_t(64) << 10) * (document->job->ranks.size() + 1);
    } else {
        const auto source = arguments["path"].get<std::string>();
        std::error_code error;
        if (!std::filesystem::is_regular_file(modelFile(source), error))
            return toolError(source + ": no such model file");
        document->kind = DocKind::Model;
        document->source = source;
        document->path = source;
        document->python = arguments.value("python", std::string());
        document->device = arguments.value("device", std::string());
    }
    if (call.stop.stopRequested()) // cancelled as it finished: kept nowhere
        return toolError(document->path + ": cancelled");
    document->loadSeconds = secondsSince(started);
    const auto closed = m_store.add(document);
    documentsChanged();
    std::string text = "Opened " + document->handle + ": " + docKindName(document->kind) + " " + document->path;
    if (document->kind != DocKind::Model)
        text += " in " + std::to_string(document->loadSeconds).substr(0, 5) + " s, " + bytesText(document->bytes);
    text += ".";
    nlohmann::json closedJson = nlohmann::json::array();
    for (const auto &c : closed) {
        text += " Closed " + c->handle + " (" + c->path + ", " + bytesText(c->bytes) + ") to stay within the " +
                bytesText(m_store.budget()) + " memory budget.";
        closedJson.push_back(c->describe());
    }
    if (const auto said = trimmed(err.str()); !said.empty())
        text += "\n" + said;
    auto result = textResult(text, false);
    result["structuredContent"] = document->describe();
    result["structuredContent"]["closed"] = closedJson;
    return result;
}

// The documents a call's handles name, or the error for the first that is not open or not of
// a kind its argument takes.
static std::variant<CallDocuments, std::string> documentsOf(DocumentStore &store, const Tool &tool,
                                                            const nlohmann::json &arguments)
{
    CallDocuments documents;
    for (const auto &argument : tool.arguments) {
        if (argument.type != Argument::Type::Handle || !arguments.contains(argument.name) ||
            arguments[argument.name].is_null())
            continue;
        const auto handle = arguments[argument.name].get<std::string>();
        const auto document = store.use(handle);
        if (!document)
            return notOpenText(handle);
        if (std::find(argument.kinds.begin(), argument.kinds.end(), document->kind) == argument.kinds.end())
            return handle + " is a " + docKindName(document->kind) + "; " + tool.name + "'s \"" + argument.name +
                   "\" takes a " + docKindName(argument.kinds.front());
        documents.add(document);
    }
    return documents;
}

nlohmann::json Server::runCommandTool(Call &call, const Tool &tool, const nlohmann::json &arguments)
{
    auto resolved = documentsOf(m_store, tool, arguments);
    if (auto *error = std::get_if<std::string>(&resolved))
        return toolError(*error);
    const auto &documents = std::get<CallDocuments>(resolved);
    std::vector<std::string> line{tool.command};
    const auto options = commandLine(tool, arguments, [&documents](const std::string &handle) {
        return documents.byHandle(handle)->path; // documentsOf holds every handle of the call
    });
    line.insert(line.end(), options.begin(), options.end());
    if (const auto *main = documents.byHandle(arguments.value("handle", std::string()));
        main && main->kind == DocKind::Model) {
        if (!main->python.empty())
            line.push_back("--python=" + main->python);
        if (!main->device.empty() && tool.command != "roofline")
            line.push_back("--device=" + main->device);
    }
    line.push_back("--format=json");
    const auto run = runIn(line, documents, call.stop);
    auto json = commandJson(run, tool.name);
    if (json.index() == 1)
        return std::get<1>(json);
    auto &structured = std::get<0>(json);
    std::string text = summaryText(tool.name, structured);
    if (const auto notes = trimmed(run.err); !notes.empty())
        text += "\n" + notes;
    return jsonResult(std::move(text), std::move(structured), m_options.maxResultBytes);
}

nlohmann::json Server::summary(Call &call, const Tool &tool, const nlohmann::json &arguments)
{
    auto resolved = documentsOf(m_store, tool, arguments);
    if (auto *error = std::get_if<std::string>(&resolved))
        return toolError(*error);
    const auto &documents = std::get<CallDocuments>(resolved);
    const auto *document = documents.byHandle(arguments["handle"].get<std::string>());
    std::vector<std::string> range;
    if (arguments.contains("range") && arguments["range"].is_string())
        range.push_back("--range=" + arguments["range"].get<std::string>());
    nlohmann::json structured = nlohmann::json::object();
    const std::vector<std::pair<std::string, std::vector<std::string>>> parts = {
        {"info", {"info"}},     {"steps", {"steps"}},  {"ops", {"ops", "--top=5"}}, {"kernels", {"kernels", "--top=5"}},
        {"memory", {"memory"}}, {"advice", {"advise"}}};
    for (const auto &[key, command] : parts) {
        auto line = command;
        line.insert(line.begin() + 1, document->path);
        if (key != "info" && key != "advice")
            line.insert(line.end(), range.begin(), range.end());
        line.push_back("--format=json");
        auto json = commandJson(runIn(line, documents, call.stop), "summary (" + command.front() + ")");
        if (json.index() == 1)
            return std::get<1>(json);
        structured[key] = std::move(std::get<0>(json));
    }
    auto text = summaryText("summary", structured);
    return jsonResult(std::move(text), std::move(structured), m_options.maxResultBytes);
}

nlohmann::json Server::writeReport(Call &call, const Tool &tool, const nlohmann::json &arguments)
{
    if (m_options.writeDir.empty())
        return toolError("this server writes nothing: start it with --write-dir DIR to have reports written there "
                         "(the reports are also resources: " +
                         kUriPrefix + "HANDLE/report.md)");
    const auto name = arguments["name"].get<std::string>();
    const auto extension = std::filesystem::path(name).extension();
    if (name.find('/') != std::string::npos || name == "." || name == ".." || name.front() == '.' ||
        (extension != ".html" && extension != ".md"))
        return toolError("\"name\" must be a file name (no folder) ending in .html or .md: " + name);
    auto resolved = documentsOf(m_store, tool, arguments);
    if (auto *error = std::get_if<std::string>(&resolved))
        return toolError(*error);
    const auto &documents = std::get<CallDocuments>(resolved);
    const auto *document = documents.byHandle(arguments["handle"].get<std::string>());
    const auto file = m_options.writeDir / name;
    const auto run = runIn(reportLine(*document, file), documents, call.stop);
    if (run.exitCode == kBadInput)
        return toolError(trimmed(run.err));
    auto result = textResult("Wrote " + file.string() + " (" + bytesText(fileBytes(file)) + ").", false);
    result["structuredContent"] = {{"path", file.string()}, {"bytes", fileBytes(file)}};
    return result;
}

nlohmann::json Server::resources() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto &document : m_store.list()) {
        const auto uri = kUriPrefix + document->handle;
        const auto name = std::filesystem::path(document->path).filename().string();
        list.push_back({{"uri", uri},
                        {"name", document->handle},
                        {"title", name},
                        {"description", std::string(docKindName(document->kind)) + " " + document->path},
                        {"mimeType", "application/json"}});
        if (document->kind == DocKind::Model)
            continue;
        list.push_back({{"uri", uri + "/report.md"},
                        {"name", document->handle + "-report.md"},
                        {"title", "Report of " + name + " (Markdown)"},
                        {"mimeType", "text/markdown"}});
        list.push_back({{"uri", uri + "/report.html"},
                        {"name", document->handle + "-report.html"},
                        {"title", "Report of " + name + " (HTML)"},
                        {"mimeType", "text/html"}});
    }
    return list;
}

nlohmann::json Server::readResource(Call &call, const nlohmann::json &params)
{
    const auto uriIt = params.find("uri");
    if (uriIt == params.end() || !uriIt->is_string())
        throw RpcError{kInvalidParams, "resources/read needs a \"uri\""};
    const auto uri = uriIt->get<std::string>();
    if (uri.rfind(kUriPrefix, 0) != 0)
        throw RpcError{kResourceNotFound, "no resource " + uri};
    const auto rest = uri.substr(kUriPrefix.size());
    const auto slash = rest.find('/');
    const auto handle = rest.substr(0, slash);
    const auto part = slash == std::string::npos ? std::string() : rest.substr(slash + 1);
    const auto document = m_store.use(handle);
    if (!document || (!part.empty() && part != "report.md" && part != "report.html") ||
        (!part.empty() && document->kind == DocKind::Model))
        throw RpcError{kResourceNotFound, "no resource " + uri + (document ? "" : " (its document is not open)")};
    if (part.empty())
        return {{"contents",
                 nlohmann::json::array(
                     {{{"uri", uri}, {"mimeType", "application/json"}, {"text", document->describe().dump(2)}}})}};
    CallDocuments documents;
    documents.add(document);
    const auto file = m_scratch / (handle + "-" + std::to_string(std::hash<std::string>()(call.key)) + "-" + part);
    const auto run = runIn(reportLine(*document, file), documents, call.stop);
    std::error_code error;
    if (run.exitCode == kBadInput || !std::filesystem::exists(file, error))
        throw RpcError{kInternalError, uri + ": " + trimmed(run.err)};
    auto text = readFile(file);
    std::filesystem::remove(file, error);
    return {{"contents", nlohmann::json::array({{{"uri", uri},
                                                 {"mimeType", part == "report.md" ? "text/markdown" : "text/html"},
                                                 {"text", std::move(text)}}})}};
}

void Server::documentsChanged()
{
    m_send(notification("notifications/resources/list_changed", nlohmann::json::object()));
}

} // namespace pyrometer::cli::mcp
