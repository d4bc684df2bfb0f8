#pragma once
// pyrometer-cli mcp: a Model Context Protocol server over stdio. Requests are read on the calling
// thread; tool calls and resource reads run on a pool, many at once, each with its own output
// streams and cancel (callcontext.h); answers go out one line at a time through `send`.
#include "app/cli/mcp/jsonrpc.h"
#include "app/cli/mcp/store.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace pyrometer::cli::mcp {

struct ServerOptions {
    std::uint64_t memoryBudget = 0; // bytes of documents kept loaded; 0: half the physical memory
    int threads = 0;                // calls run at once; 0: one per core, at least 2
    std::filesystem::path writeDir; // the only folder a tool writes to; empty: none writes
    std::size_t maxResultBytes = std::size_t(1) << 20; // a tool's JSON past it has its lists cut (calls.h)
};

// The protocol revisions answered, newest first.
const std::vector<std::string> &protocolVersions();

class Server {
public:
    using Send = std::function<void(const nlohmann::json &message)>;

    Server(const ServerOptions &options, Send send);
    ~Server(); // stops the calls under way and waits for them
    Server(const Server &) = delete;
    Server &operator=(const Server &) = delete;

    void receive(std::string_view line);
    void receiveTooLong(std::size_t bytes);
    // The end of the input: stops the calls under way, waits for them and the pool.
    void finish();

    struct Call; // a request running on the pool

private:
    void request(const Message &message);
    void notify(const Message &message);
    void start(const Message &message);
    void run(const std::shared_ptr<Call> &call, const Message &message);
    nlohmann::json callTool(Call &call, const nlohmann::json &params);
    nlohmann::json readResource(Call &call, const nlohmann::json &params);
    nlohmann::json open(Call &call, const Tool &tool, const nlohmann::json &arguments);
    nlohmann::json runCommandTool(Call &call, const Tool &tool, const nlohmann::json &arguments);
    nlohmann::json summary(Call &call, const Tool &tool, const nlohmann::json &arguments);
    nlohmann::json writeReport(Call &call, const Tool &tool, const nlohmann::json &arguments);
    nlohmann::json resources() const;
    void documentsChanged();
    void progress(const Call &call, int permille, const std::string &message);
    void work();

    ServerOptions m_options;
    Send m_send;
    DocumentStore m_store;
    std::filesystem::path m_scratch; // private (0700), for reports read as resources; removed at the end

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_queue;
    std::map<std::string, std::shared_ptr<Call>> m_calls; // by id
    bool m_stopping = false;
    std::vector<std::thread> m_workers;
};

// Serves on standard input and output until the input ends; returns the exit status.
int serveStdio(const ServerOptions &options);

} // namespace pyrometer::cli::mcp
