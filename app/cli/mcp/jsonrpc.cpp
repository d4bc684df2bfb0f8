#include "app/cli/mcp/jsonrpc.h"

namespace pyrometer::cli::mcp {
namespace {

std::string bytesWord(std::size_t bytes)
{
    return std::to_string(bytes) + " bytes";
}

// The id of a message that has one of a valid type: a string or an integer (JSON-RPC also allows
// null, which MCP does not, and numbers with fractions, which it discourages).
bool validId(const nlohmann::json &id)
{
    return id.is_string() || id.is_number_integer();
}

} // namespace

void LineReader::feed(std::string_view bytes, const OnLine &onLine, const OnTooLong &onTooLong)
{
    while (!bytes.empty()) {
        const auto newline = bytes.find('\n');
        const auto piece = bytes.substr(0, newline);
        if (m_skipped > 0 || m_line.size() + piece.size() > m_maxBytes) {
            m_skipped += m_line.size() + piece.size();
            m_line.clear();
        } else {
            m_line.append(piece);
        }
        if (newline == std::string_view::npos)
            return;
        bytes.remove_prefix(newline + 1);
        if (m_skipped > 0) {
            onTooLong(m_skipped);
            m_skipped = 0;
            continue;
        }
        std::string_view line = m_line;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (!line.empty())
            onLine(line);
        m_line.clear();
    }
}

void LineReader::finish(const OnLine &onLine, const OnTooLong &onTooLong)
{
    feed("\n", onLine, onTooLong);
}

int nestingDepth(std::string_view text, int limit)
{
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit)
                return deepest;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

std::variant<Message, nlohmann::json> decode(std::string_view line)
{
    if (line.size() > kMaxMessageBytes)
        return errorResponse(nullptr, kInvalidRequest,
                             "message of " + bytesWord(line.size()) + " past the bound of " +
                                 bytesWord(kMaxMessageBytes));
    if (nestingDepth(line, kMaxDepth) > kMaxDepth)
        return errorResponse(nullptr, kInvalidRequest,
                             "JSON nested deeper than " + std::to_string(kMaxDepth) + " arrays and objects");
    auto json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_discarded())
        return errorResponse(nullptr, kParseError, "not JSON: each line must be one JSON-RPC message");
    if (json.is_array())
        return errorResponse(nullptr, kInvalidRequest, "batches are not taken: send one message per line");
    if (!json.is_object())
        return errorResponse(nullptr, kInvalidRequest, "a message is a JSON object");
    const auto idIt = json.find("id");
    const bool hasId = idIt != json.end();
    const nlohmann::json id = hasId && validId(*idIt) ? *idIt : nlohmann::json(nullptr);
    const auto version = json.find("jsonrpc");
    if (version == json.end() || !version->is_string() || *version != "2.0")
        return errorResponse(id, kInvalidRequest, "\"jsonrpc\" must be \"2.0\"");
    if (hasId && !validId(*idIt))
        return errorResponse(nullptr, kInvalidRequest, "\"id\" must be a string or an integer");
    Message message;
    message.id = id;
    const auto method = json.find("method");
    if (method == json.end()) {
        if (hasId && (json.contains("result") || json.contains("error"))) {
            message.kind = Message::Kind::Response;
            return message;
        }
        return errorResponse(id, kInvalidRequest, "a request needs a \"method\"");
    }
    if (!method->is_string())
        return errorResponse(id, kInvalidRequest, "\"method\" must be a string");
    message.method = method->get<std::string>();
    message.kind = hasId ? Message::Kind::Request : Message::Kind::Notification;
    if (const auto params = json.find("params"); params != json.end()) {
        if (!params->is_object())
            return errorResponse(id, kInvalidParams, "\"params\" must be an object");
        message.params = std::move(*params);
    }
    return message;
}

nlohmann::json errorResponse(const nlohmann::json &id, int code, const std::string &message)
{
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

nlohmann::json resultResponse(const nlohmann::json &id, nlohmann::json result)
{
    return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

nlohmann::json notification(const std::string &method, nlohmann::json params)
{
    return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

} // namespace pyrometer::cli::mcp
