#pragma once
// JSON-RPC 2.0 as the Model Context Protocol's stdio transport carries it: one message per line,
// UTF-8 JSON, no embedded newlines. Everything here takes untrusted bytes (fuzz_mcp_protocol):
// a line past the bound, JSON nested past the bound, a batch or a message of the wrong shape is
// an error response, never a crash or an unbounded allocation.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <variant>

namespace pyrometer::cli::mcp {

inline constexpr std::size_t kMaxMessageBytes = std::size_t(16) << 20; // 16 MiB: tool calls are small
inline constexpr int kMaxDepth = 64;                                   // nesting of arrays and objects

enum ErrorCode : int {
    kParseError = -32700,
    kInvalidRequest = -32600,
    kMethodNotFound = -32601,
    kInvalidParams = -32602,
    kInternalError = -32603,
};

// Splits a byte stream into lines of at most maxBytes (the '\n' and a '\r' before it removed).
// A longer line is dropped as it arrives, never held, and reported once when it ends.
class LineReader {
public:
    using OnLine = std::function<void(std::string_view line)>;
    using OnTooLong = std::function<void(std::size_t bytes)>;

    explicit LineReader(std::size_t maxBytes = kMaxMessageBytes) : m_maxBytes(maxBytes) {}

    void feed(std::string_view bytes, const OnLine &onLine, const OnTooLong &onTooLong);
    // At the end of the stream: a last line without its newline.
    void finish(const OnLine &onLine, const OnTooLong &onTooLong);

private:
    std::size_t m_maxBytes;
    std::string m_line;
    std::size_t m_skipped = 0; // > 0 while dropping a line past the bound
};

// One message a client sent.
struct Message {
    enum class Kind { Request, Notification, Response };
    Kind kind = Kind::Request;
    nlohmann::json id; // a request's or a response's: a string or an integer
    std::string method;
    nlohmann::json params = nlohmann::json::object(); // always an object (absent: empty)
};

// A line decoded: the message, or the error response to send for it (its id null when the
// line did not give one).
std::variant<Message, nlohmann::json> decode(std::string_view line);

// Deepest nesting of arrays and objects in a JSON text, scanning past strings; stops counting
// at limit + 1.
int nestingDepth(std::string_view text, int limit);

nlohmann::json errorResponse(const nlohmann::json &id, int code, const std::string &message);
nlohmann::json resultResponse(const nlohmann::json &id, nlohmann::json result);
nlohmann::json notification(const std::string &method, nlohmann::json params);

} // namespace pyrometer::cli::mcp
