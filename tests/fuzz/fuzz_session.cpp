// libFuzzer target for session files (core/session/sessionfile.h, readSession): any bytes must
// read as a session or give an Error with a message, never a crash, a hang or unbounded
// memory. A session that reads is saved again as the window saves it, and must read back the
// same: a session the user saves must open again.
//   seeds: tests/fixtures/fuzz/session
#include "core/session/sessionfile.h"
#include "tests/fuzz/fuzzfiles.h"

#include <cstdint>

using namespace pyrometer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto read = session::readSession(fuzz::writeInput("work.pyrometer", data, size));
    if (!fuzz::checkResult(read))
        return 0;
    const auto &state = read.value();
    (void)state.isEmpty();
    for (const auto &bookmark : state.bookmarks)
        (void)bookmark.isPosition();

    static const auto saved = fuzz::scratchDir() / "saved.pyrometer";
    const auto written = session::writeSession(saved, state);
    if (!fuzz::checkResult(written))
        return 0;
    const auto reread = session::readSession(saved);
    if (!reread.ok() || session::toJson(reread.value()).dump() != session::toJson(state).dump())
        fuzz::fail("a session read does not read back the same after saving");
    return 0;
}
