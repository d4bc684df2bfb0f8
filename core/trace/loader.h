#pragma once

#include "core/trace/trace.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>
#include <memory>

namespace pyrometer::trace {

struct LoadOptions {
    // Load the valid prefix of a truncated or damaged file (with a warning) instead of failing.
    bool partial = false;
};

// Loads a Chrome trace (torch.profiler / Kineto JSON, plain or gzipped, object or bare-array
// form) into an immutable Trace. Streams the file in chunks, so memory stays bounded by the
// model plus a window of a few tens of MB whatever the file size. Reports progress on 0..1000;
// a stop request ends it within ~100 ms with an Error whose message ends with "cancelled".
// Every error message is one line that names the file.
Result<std::shared_ptr<const Trace>> loadTrace(const std::filesystem::path &file, const LoadOptions &options,
                                               ProgressReporter &progress, const StopToken &stop);

// Convenience for tests and tools: no progress, never stopped.
Result<std::shared_ptr<const Trace>> loadTrace(const std::filesystem::path &file, const LoadOptions &options = {});

} // namespace pyrometer::trace
