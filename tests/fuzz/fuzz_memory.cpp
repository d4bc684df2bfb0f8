// libFuzzer target for memory files, the launcher's <stem>.pt.memory.json beside a recorded
// trace (core/record/memorycategories.h, loadMemoryCategories): any bytes must read as memory
// categories or give an Error with a message, never a crash, a hang or unbounded memory. What
// the Memory page asks of a file that reads (its peak, each category's maximum, where a sample
// was taken) is asked too.
//   seeds: tests/fixtures/fuzz/memory
#include "core/record/memorycategories.h"
#include "tests/fuzz/fuzzfiles.h"

#include <cstdint>

using namespace pyrometer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto read =
        record::loadMemoryCategories(fuzz::writeInput("worker0.1700000000123.pt.memory.json", data, size));
    if (!fuzz::checkResult(read))
        return 0;
    const auto &categories = read.value();
    const auto peak = record::memoryPeak(categories);
    if (peak.found() != !categories.samples.empty() || (peak.found() && peak.index >= categories.samples.size()))
        fuzz::fail("a memory peak that is not one of the samples");
    if (peak.found())
        (void)record::memorySamplePlace(peak.sample);
    (void)record::categoryMaxima(categories);
    return 0;
}
