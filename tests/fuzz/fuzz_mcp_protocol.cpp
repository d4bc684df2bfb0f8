// libFuzzer target for what the MCP server (pyrometer-cli mcp) reads from its client: any bytes,
// split into lines by its LineReader (with a small bound, so that the over-long path runs too),
// decoded as JSON-RPC, and each tools/call's arguments checked against its tool's schema and made
// into the subcommand's command line. Every line gives a message or an error response of the
// protocol's codes, never a crash, a hang or unbounded memory; arguments that pass the check make
// a command line of options only (a handle's path is the one positional).
//   seeds: tests/fixtures/fuzz/mcp_protocol (a session as the official client sends it, model
//   and snapshot calls, malformed lines)
#include "app/cli/mcp/jsonrpc.h"
#include "app/cli/mcp/tools.h"
#include "tests/fuzz/fuzzfiles.h"

#include <cstdint>
#include <string>
#include <string_view>

using namespace pyrometer::cli::mcp;
using pyrometer::fuzz::fail;

namespace {

void checkError(const nlohmann::json &response)
{
    const auto &error = response.at("error");
    const int code = error.at("code").get<int>();
    if (code != kParseError && code != kInvalidRequest && code != kMethodNotFound && code != kInvalidParams)
        fail("an error response with a code the protocol does not have");
    if (!error.at("message").is_string() || error.at("message").get_ref<const std::string &>().empty())
        fail("an error response without a message");
    const auto &id = response.at("id");
    if (!id.is_null() && !id.is_string() && !id.is_number_integer())
        fail("an error response whose id is of a type no request has");
    (void)response.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void checkCall(const Message &message)
{
    const auto name = message.params.find("name");
    if (name == message.params.end() || !name->is_string())
        return;
    const Tool *tool = findTool(name->get<std::string>());
    if (!tool)
        return;
    const auto found = message.params.find("arguments");
    const nlohmann::json arguments = found == message.params.end() ? nlohmann::json::object() : *found;
    if (checkArguments(*tool, arguments))
        return;
    std::size_t positional = 0;
    for (const auto &argument : tool->arguments)
        positional +=
            argument.type == Argument::Type::Handle && argument.flag.empty() && arguments.contains(argument.name);
    const auto line = commandLine(*tool, arguments, [](const std::string &handle) { return "/documents/" + handle; });
    for (std::size_t i = 0; i < line.size(); ++i) {
        const bool option = line[i].rfind("--", 0) == 0;
        if (i < positional ? line[i].rfind("/documents/", 0) != 0 : !option)
            fail("a checked call made a command line with a stray argument");
    }
}

void readLine(std::string_view line)
{
    auto decoded = decode(line);
    if (const auto *error = std::get_if<nlohmann::json>(&decoded)) {
        checkError(*error);
        return;
    }
    const auto &message = std::get<Message>(decoded);
    if (!message.params.is_object())
        fail("a message whose params are not an object");
    if (message.kind == Message::Kind::Request && message.method == "tools/call")
        checkCall(message);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const bool listed = [] {
        for (const auto &tool : tools())
            if (toolJson(tool).dump().empty())
                fail("a tool without a description");
        return true;
    }();
    (void)listed;
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    // Fed in two pieces, cut where the first byte says: a line may straddle the reads.
    const std::size_t cut = size == 0 ? 0 : std::size_t(data[0]) * size / 256;
    LineReader reader(4096);
    std::size_t tooLong = 0;
    const auto onTooLong = [&tooLong](std::size_t length) {
        if (length <= 4096)
            fail("a line within the bound reported as too long");
        ++tooLong;
    };
    reader.feed(bytes.substr(0, cut), readLine, onTooLong);
    reader.feed(bytes.substr(cut), readLine, onTooLong);
    reader.finish(readLine, onTooLong);
    if (tooLong > size / 4097 + 1)
        fail("more over-long lines than the input can hold");
    return 0;
}
