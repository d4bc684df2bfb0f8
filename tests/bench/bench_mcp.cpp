// A question to `pyrometer-cli mcp` about a trace it holds loaded, against `pyrometer-cli` reading
// the trace again to answer it: the server is started, opens the trace once, and is asked ops
// (twice), critical_path and summary; then pyrometer-cli ops TRACE --format json runs twice.
// Prints the wall time of each and the ratio of a reparse to a loaded question.
//   mcp_bench PYROMETER_CLI TRACE
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Server {
    pid_t pid = -1;
    int in = -1;  // its standard input
    int out = -1; // its standard output
    std::string pending;

    void send(const nlohmann::json &message)
    {
        const auto line = message.dump() + "\n";
        if (::write(in, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
            std::exit(1);
    }

    // The next message with this id.
    nlohmann::json answer(int id)
    {
        for (;;) {
            const auto newline = pending.find('\n');
            if (newline != std::string::npos) {
                auto message = nlohmann::json::parse(pending.substr(0, newline), nullptr, false);
                pending.erase(0, newline + 1);
                if (message.is_object() && message.value("id", nlohmann::json()) == id)
                    return message;
                continue;
            }
            char buffer[1 << 16];
            const auto n = ::read(out, buffer, sizeof buffer);
            if (n <= 0) {
                std::fprintf(stderr, "mcp_bench: the server ended\n");
                std::exit(1);
            }
            pending.append(buffer, std::size_t(n));
        }
    }

    // Calls a tool and returns the seconds its answer took; exits on a tool error.
    double call(int id, const std::string &tool, const nlohmann::json &arguments)
    {
        const auto start = Clock::now();
        send({{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "tools/call"},
              {"params", {{"name", tool}, {"arguments", arguments}}}});
        const auto message = answer(id);
        const double seconds = secondsSince(start);
        if (!message.contains("result") || message["result"].value("isError", true)) {
            std::fprintf(stderr, "mcp_bench: %s failed: %s\n", tool.c_str(), message.dump().substr(0, 400).c_str());
            std::exit(1);
        }
        return seconds;
    }
};

Server startServer(const char *cli)
{
    int toServer[2];
    int fromServer[2];
    if (::pipe(toServer) != 0 || ::pipe(fromServer) != 0)
        std::exit(1);
    Server server;
    server.pid = ::fork();
    if (server.pid == 0) {
        ::dup2(toServer[0], 0);
        ::dup2(fromServer[1], 1);
        ::close(toServer[1]);
        ::close(fromServer[0]);
        ::execl(cli, cli, "mcp", static_cast<char *>(nullptr));
        std::_Exit(127);
    }
    ::close(toServer[0]);
    ::close(fromServer[1]);
    server.in = toServer[1];
    server.out = fromServer[0];
    return server;
}

// Wall seconds of `CLI ARGS...` with its output thrown away.
double runCli(const char *cli, const std::vector<std::string> &arguments)
{
    const auto start = Clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::dup2(null, 2);
        std::vector<char *> argv{const_cast<char *>(cli)};
        for (const auto &a : arguments)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(cli, argv.data());
        std::_Exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "mcp_bench: %s failed\n", cli);
        std::exit(1);
    }
    return secondsSince(start);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: mcp_bench PYROMETER_CLI TRACE\n");
        return 2;
    }
    const char *cli = argv[1];
    const std::string trace = argv[2];
    auto server = startServer(cli);
    server.send({{"jsonrpc", "2.0"},
                 {"id", 0},
                 {"method", "initialize"},
                 {"params",
                  {{"protocolVersion", "2025-06-18"},
                   {"capabilities", nlohmann::json::object()},
                   {"clientInfo", {{"name", "mcp_bench"}, {"version", "1"}}}}}});
    server.answer(0);
    const double open = server.call(1, "open_trace", {{"path", trace}});
    const double first = server.call(2, "ops", {{"handle", "trace-1"}});
    const double second = server.call(3, "ops", {{"handle", "trace-1"}});
    const double path = server.call(4, "critical_path", {{"handle", "trace-1"}});
    const double summary = server.call(5, "summary", {{"handle", "trace-1"}});
    ::close(server.in);
    int status = 0;
    ::waitpid(server.pid, &status, 0);
    const double cli1 = runCli(cli, {"ops", trace, "--format", "json"});
    const double cli2 = runCli(cli, {"ops", trace, "--format", "json"});
    const double reparse = std::min(cli1, cli2);
    std::printf("trace: %s\n", trace.c_str());
    std::printf("mcp open_trace:            %8.3f s\n", open);
    std::printf("mcp ops, first question:   %8.3f s\n", first);
    std::printf("mcp ops, second question:  %8.3f s\n", second);
    std::printf("mcp critical_path:         %8.3f s\n", path);
    std::printf("mcp summary (6 analyses):  %8.3f s\n", summary);
    std::printf("pyrometer-cli ops (reparse): %6.3f s, %.3f s\n", cli1, cli2);
    std::printf("reparse / second question: %8.1fx\n", reparse / second);
    return 0;
}
