// libFuzzer target for the Python engine worker's protocol (core/engine/workerprotocol.h): any
// bytes, read line by line as a worker's status channel, must give events or errors with a
// message, never a crash, a hang or unbounded memory. An event that reads, a streamed one
// assembled included, keeps its whole schema (every list item checked), which is what the
// engine's readers rely on to never meet a wrong type.
//   seeds: tests/fixtures/fuzz/worker_protocol (streams the worker wrote for factory_cnn.py)
#include "core/engine/workerprotocol.h"
#include "tests/fuzz/fuzzfiles.h"

#include <cstdint>
#include <string_view>

using namespace pyrometer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    std::string_view text(reinterpret_cast<const char *>(data), size);
    engine::WorkerMessages messages;
    while (!text.empty()) {
        const auto end = text.find('\n');
        const auto line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        const auto read = messages.read(line);
        fuzz::checkResult(read);
        if (!read.ok() || !read.value())
            continue;
        const auto &event = *read.value();
        if (!engine::protocolProblem(event).empty())
            fuzz::fail("an event that reads but breaks its schema");
    }
    return 0;
}
