#include "app/cli/mcp/server.h"

#include "app/cli/commands.h"
#include "app/cli/mcp/calls.h"
#include "core/util/version.h"

#include <algorithm>
#include <iostream>

#include <unistd.h>

namespace pyrometer::cli::mcp {

namespace {

constexpr std::size_t kMaxQueuedCalls = 1024;

std::uint64_t physicalMemory()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? std::uint64_t(pages) * std::uint64_t(size) : std::uint64_t(8) << 30;
}

} // namespace

const std::vector<std::string> &protocolVersions()
{
    static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
    return versions;
}

Server::Server(const ServerOptions &options, Send send)
    : m_options(options), m_send(std::move(send)),
      m_store(options.memoryBudget > 0 ? options.memoryBudget : physicalMemory() / 2)
{
    std::string pattern = (std::filesystem::temp_directory_path() / "pyrometer-mcp-XXXXXX").string();
    if (mkdtemp(pattern.data()))
        m_scratch = pattern;
    const int threads =
        options.threads > 0 ? options.threads : std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
    for (int i = 0; i < threads; ++i)
        m_workers.emplace_back([this] { work(); });
}

Server::~Server()
{
    finish();
    if (!m_scratch.empty()) {
        std::error_code error;
        std::filesystem::remove_all(m_scratch, error);
    }
}

void Server::finish()
{
    {
        const std::lock_guard lock(m_mutex);
        if (m_stopping && m_workers.empty())
            return;
        m_stopping = true;
        for (const auto &[key, call] : m_calls)
            call->stop.requestStop();
    }
    m_wake.notify_all();
    for (auto &worker : m_workers)
        worker.join();
    m_workers.clear();
}

void Server::work()
{
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_queue.empty())
                return;
            task = std::move(m_queue.front());
            m_queue.pop_front();
        }
        task();
    }
}

void Server::receiveTooLong(std::size_t bytes)
{
    m_send(errorResponse(nullptr, kInvalidRequest,
                         "message of " + std::to_string(bytes) + " bytes past the bound of " +
                             std::to_string(kMaxMessageBytes) + " bytes"));
}

void Server::receive(std::string_view line)
{
    auto decoded = decode(line);
    if (auto *error = std::get_if<nlohmann::json>(&decoded)) {
        m_send(*error);
        return;
    }
    const auto &message = std::get<Message>(decoded);
    if (message.kind == Message::Kind::Notification)
        notify(message);
    else if (message.kind == Message::Kind::Request)
        request(message);
}

void Server::notify(const Message &message)
{
    if (message.method != "notifications/cancelled")
        return; // initialized, progress, roots: nothing to do
    const auto id = message.params.find("requestId");
    if (id == message.params.end())
        return;
    const std::lock_guard lock(m_mutex);
    if (const auto it = m_calls.find(id->dump()); it != m_calls.end())
        it->second->stop.requestStop();
}

void Server::request(const Message &message)
{
    const auto &method = message.method;
    if (method == "initialize") {
        const auto asked = message.params.find("protocolVersion");
        std::string version = protocolVersions().front();
        if (asked != message.params.end() && asked->is_string() &&
            std::find(protocolVersions().begin(), protocolVersions().end(), asked->get<std::string>()) !=
                protocolVersions().end())
            version = asked->get<std::string>();
        m_send(resultResponse(
            message.id,
            {{"protocolVersion", version},
             {"capabilities", {{"tools", {{"listChanged", false}}}, {"resources", {{"listChanged", true}}}}},
             {"serverInfo", {{"name", "pyrometer"}, {"title", "Pyrometer"}, {"version", kVersion}}},
             {"instructions",
              "Open a torch.profiler trace (open_trace), a job, a memory snapshot or a model, then ask with its "
              "handle: summary first, then ops, kernels, steps, idle, launches, critical_path, memory, advise. "
              "Documents stay loaded between calls. Times are microseconds; json times are the trace's own ts."}}));
    } else if (method == "ping") {
        m_send(resultResponse(message.id, nlohmann::json::object()));
    } else if (method == "tools/list") {
        nlohmann::json list = nlohmann::json::array();
        for (const auto &tool : tools())
            list.push_back(toolJson(tool));
        m_send(resultResponse(message.id, {{"tools", list}}));
    } else if (method == "resources/list") {
        m_send(resultResponse(message.id, {{"resources", resources()}}));
    } else if (method == "resources/templates/list") {
        m_send(resultResponse(message.id, {{"resourceTemplates", nlohmann::json::array()}}));
    } else if (method == "tools/call" || method == "resources/read") {
        start(message);
    } else {
        m_send(errorResponse(message.id, kMethodNotFound, "unknown method " + method));
    }
}

void Server::start(const Message &message)
{
    auto call = std::make_shared<Call>();
    call->id = message.id;
    call->key = message.id.dump();
    if (const auto meta = message.params.find("_meta"); meta != message.params.end() && meta->is_object())
        if (const auto token = meta->find("progressToken");
            token != meta->end() && (token->is_string() || token->is_number_integer()))
            call->progressToken = *token;
    {
        const std::lock_guard lock(m_mutex);
        std::string refused;
        if (m_stopping)
            refused = "the server is stopping";
        else if (m_calls.count(call->key))
            refused = "a request with this id is under way";
        else if (m_queue.size() >= kMaxQueuedCalls)
            refused = "too many requests under way";
        if (refused.empty()) {
            m_calls[call->key] = call;
            m_queue.push_back([this, call, message] { run(call, message); });
        } else {
            m_send(errorResponse(message.id, kInvalidRequest, refused));
            return;
        }
    }
    m_wake.notify_one();
}

void Server::run(const std::shared_ptr<Call> &call, const Message &message)
{
    nlohmann::json response;
    try {
        response = resultResponse(call->id, message.method == "tools/call" ? callTool(*call, message.params)
                                                                           : readResource(*call, message.params));
    } catch (const RpcError &error) {
        response = errorResponse(call->id, error.code, error.message);
    } catch (const std::exception &error) {
        response = resultResponse(call->id, toolError(std::string("internal error: ") + error.what()));
    }
    {
        const std::lock_guard lock(m_mutex);
        m_calls.erase(call->key);
    }
    // A cancelled request is not answered (the client has forgotten it); the log says how it ended.
    if (!call->stop.stopRequested()) {
        m_send(response);
        return;
    }
    const auto &result = response.contains("result") ? response["result"] : response["error"];
    std::string said = result.contains("content") ? result["content"][0].value("text", "") : result.value("message", "");
    std::cerr << "pyrometer-cli mcp: request " << call->key << " cancelled: " << said << '\n';
}

void Server::progress(const Call &call, int permille, const std::string &message)
{
    if (call.progressToken.is_null() || call.stop.stopRequested())
        return;
    m_send(notification("notifications/progress", {{"progressToken", call.progressToken},
                                                   {"progress", permille},
                                                   {"total", ProgressReporter::kScale},
                                                   {"message", message}}));
}

nlohmann::json Server::callTool(Call &call, const nlohmann::json &params)
{
    const auto name = params.find("name");
    if (name == params.end() || !name->is_string())
        throw RpcError{kInvalidParams, "tools/call needs a tool \"name\""};
    const Tool *tool = findTool(name->get<std::string>());
    if (!tool)
        throw RpcError{kInvalidParams, "unknown tool " + name->get<std::string>()};
    const auto found = params.find("arguments");
    const nlohmann::json arguments = found == params.end() ? nlohmann::json::object() : *found;
    if (const auto error = checkArguments(*tool, arguments))
        return toolError(*error);
    switch (tool->action) {
    case Tool::Action::Open: return open(call, *tool, arguments);
    case Tool::Action::Close: {
        const auto closed = m_store.close(arguments["handle"].get<std::string>());
        if (!closed)
            return toolError(notOpenText(arguments["handle"].get<std::string>()));
        documentsChanged();
        auto result = textResult(
            "Closed " + closed->handle + " (" + closed->path + "), " + bytesText(closed->bytes) + " freed.", false);
        result["structuredContent"] = {{"closed", closed->describe()}};
        return result;
    }
    case Tool::Action::Documents: {
        nlohmann::json list = nlohmann::json::array();
        std::string text;
        for (const auto &document : m_store.list()) {
            list.push_back(document->describe());
            text += document->handle + " " + docKindName(document->kind) + " " + document->path + " (" +
                    bytesText(document->bytes) + ")\n";
        }
        auto result = textResult(
            text + bytesText(m_store.bytes()) + " held of a budget of " + bytesText(m_store.budget()) + ".", false);
        result["structuredContent"] = {
            {"documents", list}, {"memory_bytes", m_store.bytes()}, {"budget_bytes", m_store.budget()}};
        return result;
    }
    case Tool::Action::Summary: return summary(call, *tool, arguments);
    case Tool::Action::Report: return writeReport(call, *tool, arguments);
    case Tool::Action::Command: break;
    }
    return runCommandTool(call, *tool, arguments);
}

} // namespace pyrometer::cli::mcp
