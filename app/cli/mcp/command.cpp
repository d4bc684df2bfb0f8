// pyrometer-cli mcp: the Model Context Protocol server on standard input and output.
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/mcp/server.h"
#include "app/cli/output.h"
#include "core/model/sweep.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <mutex>

#include <fcntl.h>
#include <unistd.h>

namespace pyrometer::cli {
namespace {

struct McpOptions {
    std::string writeDir;
    std::string memoryBudget;
    std::string maxResult;
    int threads = 0;
};

bool writeAll(int fd, const std::string &text)
{
    std::size_t done = 0;
    while (done < text.size()) {
        const auto n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += std::size_t(n);
    }
    return true;
}

int runMcp(const McpOptions &options)
{
    mcp::ServerOptions server;
    server.threads = options.threads;
    if (!options.memoryBudget.empty()) {
        const auto budget = model::parseByteSize(options.memoryBudget);
        if (!budget || *budget <= 0)
            return badInput("mcp: --memory-budget \"" + options.memoryBudget + "\": not a size such as 8GiB");
        server.memoryBudget = std::uint64_t(*budget);
    }
    if (!options.maxResult.empty()) {
        const auto bytes = model::parseByteSize(options.maxResult);
        if (!bytes || *bytes < 1024)
            return badInput("mcp: --max-result \"" + options.maxResult +
                            "\": not a size of 1KiB or more, such as 256KiB");
        server.maxResultBytes = std::size_t(*bytes);
    }
    if (!options.writeDir.empty()) {
        std::error_code error;
        if (!std::filesystem::is_directory(options.writeDir, error))
            return badInput("mcp: --write-dir " + options.writeDir + ": no such folder");
        server.writeDir = std::filesystem::canonical(options.writeDir, error);
    }
    return mcp::serveStdio(server);
}

} // namespace

void setupMcp(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<McpOptions>();
    command.add_option("--write-dir", options->writeDir,
                       "The one folder tools may write reports to (default: none; reports are resources)");
    command.add_option("--memory-budget", options->memoryBudget,
                       "Documents kept loaded, at most (8GiB); past it the least recently used close (default: half "
                       "the memory)");
    command.add_option(
        "--max-result", options->maxResult,
        "A tool's JSON past this size has each list cut to its first items, and says so (default: 1MiB)");
    addCountOption(command, "--threads", options->threads, 0, "Calls run at once (0: one per core, at least 2)");
    command.callback([options, exitCode] { *exitCode = runMcp(*options); });
}

namespace mcp {

int serveStdio(const ServerOptions &options)
{
    // Messages go out on a copy of standard output; standard output itself goes to standard error,
    // so that nothing else printed can break a message.
    const int protocol = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (protocol < 0)
        return badInput("mcp: standard output cannot be duplicated");
    std::fflush(stdout);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    std::signal(SIGPIPE, SIG_IGN);
    std::mutex sending;
    bool open = true;
    Server server(options, [&](const nlohmann::json &message) {
        const auto line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        const std::lock_guard lock(sending);
        if (open)
            open = writeAll(protocol, line);
    });
    std::cerr << "pyrometer-cli mcp: serving on standard input and output\n";
    LineReader reader;
    const auto onLine = [&server](std::string_view line) { server.receive(line); };
    const auto onTooLong = [&server](std::size_t bytes) { server.receiveTooLong(bytes); };
    std::string buffer(std::size_t(1) << 16, '\0');
    for (;;) {
        const auto n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        reader.feed(std::string_view(buffer.data(), std::size_t(n)), onLine, onTooLong);
    }
    reader.finish(onLine, onTooLong);
    server.finish();
    ::close(protocol);
    return kSuccess;
}

} // namespace mcp
} // namespace pyrometer::cli
