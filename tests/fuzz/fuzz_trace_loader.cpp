// libFuzzer target for the trace loader: any bytes, as a plain or gzipped file, must give a
// Trace or an Error, never a crash, a hang or unbounded memory.
//   build: cmake -DPYROMETER_FUZZ=ON with CMAKE_CXX_COMPILER=clang++ (see CMakeLists.txt)
//   run:   fuzz_trace_loader -max_len=65536 -rss_limit_mb=1024 CORPUS_DIR SEED_DIR
#include "core/trace/loader.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const int fd = memfd_create("fuzz_trace", 0);
    if (fd < 0)
        return 0;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))
        return 0;
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    for (const bool partial : {false, true}) {
        pyrometer::trace::LoadOptions options;
        options.partial = partial;
        const auto result = pyrometer::trace::loadTrace(path, options);
        if (result.ok()) {
            const auto &trace = *result.value();
            // Touch the model so that inconsistencies show up under the sanitizers.
            std::uint64_t slices = 0;
            for (const auto &track : trace.tracks) {
                for (std::uint32_t i = 0; i < track.size(); ++i)
                    slices += track.parent[i].isValid() ? track.parent[i].value < track.size() : 1;
            }
            if (slices != trace.sliceCount())
                __builtin_trap();
        } else if (result.error().message.empty()) {
            __builtin_trap();
        }
    }
    return 0;
}
