#pragma once
// The Python engine's worker protocol as the host reads it: JSON lines on the status channel,
// one record per line. The first message is "hello" with the protocol's version (an "error"
// may come before it: no torch, an unreadable request). Every message is checked against its
// event's schema before anything reads it, so a worker of another version, a model that writes
// on the channel, or garbage gives a message naming the problem, never a wrong-typed read.
//
// A result too large for one line (a profile's operators, a forward's ops) is streamed:
//   {"event":"begin","of":"profile", ...its other fields}
//   {"event":"item","of":"profile","list":"ops","item":{...}}   one per element
//   {"event":"end","of":"profile"}
// and read as the one event {"event":"profile","ops":[...], ...}.

#include "core/util/result.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pyrometer::engine {

inline constexpr int kWorkerProtocol = 1;
// The longest line a worker may write: a record, never a whole result.
inline constexpr std::size_t kMaxWorkerLine = std::size_t(4) << 20;
// The most items, and bytes of their lines, one streamed result may hold.
inline constexpr std::size_t kMaxStreamedItems = std::size_t(20) << 20;
inline constexpr std::size_t kMaxStreamedBytes = std::size_t(2) << 30;

// Why message breaks its event's schema ("loaded: 'parameters' is a string, not an integer"),
// or empty when it keeps it. Events the host does not know are refused too.
std::string protocolProblem(const nlohmann::json &message);

// Reads a worker's lines in order, the streamed results assembled.
class WorkerMessages {
public:
    // The event line completes (an ordinary one, or a streamed one at its "end"); nothing for
    // a line inside a stream; an Error naming the problem for anything else: not JSON, not an
    // object, a schema broken, a protocol of another version, an item outside its stream.
    Result<std::optional<nlohmann::json>> read(std::string_view line);
    bool greeted() const { return m_greeted; }

private:
    Result<std::optional<nlohmann::json>> readStreamed(nlohmann::json message);

    std::optional<nlohmann::json> m_open; // a streamed result being assembled
    std::size_t m_items = 0;
    std::size_t m_bytes = 0; // of the open stream's item lines
    bool m_greeted = false;
};

} // namespace pyrometer::engine
