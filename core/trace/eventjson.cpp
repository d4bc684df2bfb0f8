#include "core/trace/eventjson.h"

#include "core/trace/byteinput.h"
#include "core/trace/jsonscan.h"

#include <vector>

namespace pyrometer::trace {

Result<std::string> readJsonObjectAt(const std::filesystem::path &file, std::uint64_t offset)
{
    auto input = ByteInput::open(file);
    if (!input)
        return input.error();
    auto &in = *input.value();
    if (in.skip(offset) != offset)
        return Error{file.string() + ": the file ends before byte " + std::to_string(offset)};
    std::vector<char> buffer(1 << 20);
    std::string text;
    constexpr std::size_t kMaxEvent = 256u << 20;
    for (;;) {
        const auto got = in.read(buffer.data(), buffer.size());
        text.append(buffer.data(), got);
        if (text.empty() || text[0] != '{')
            return Error{file.string() + ": no event at byte " + std::to_string(offset) + " (the file changed?)"};
        const auto end = jsonscan::objectEnd(text);
        if (end != jsonscan::npos) {
            text.resize(end);
            return text;
        }
        if (got == 0 || text.size() > kMaxEvent)
            return Error{file.string() + ": the event at byte " + std::to_string(offset) + " does not end"};
    }
}

Result<std::string> readEventJson(const Trace &trace, TrackId track, EventIndex event)
{
    const auto &t = trace.track(track);
    if (!event.isValid() || event.value >= t.size())
        return Error{trace.info.file.string() + ": no such event"};
    return readJsonObjectAt(trace.info.file, t.sourceOffset[event.value]);
}

} // namespace pyrometer::trace
