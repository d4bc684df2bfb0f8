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
    // Threads that parse chunks of the events array besides the calling one: -1 one per core,
    // 0 none (parse on the calling thread only).
    int parserThreads = -1;
    // Bytes of events per chunk; 0 for the default (4 MiB). Tests make it small to exercise
    // the parallel path on small files.
    std::size_t chunkBytes = 0;
};

// Loads a Chrome trace (torch.profiler / Kineto JSON, plain or gzipped, object or bare-array
// form) into an immutable Trace. Streams the file in chunks (a plain file is mapped, a gzip file
// inflated into a window of a few tens of MB), so memory stays bounded by the model plus a few
// chunks whatever the file size; chunks are parsed on several threads. Reports progress on 0..1000;
// a stop request ends it within ~100 ms with an Error whose message ends with "cancelled".
// Every error message is one line that names the file.
Result<std::shared_ptr<const Trace>> loadTrace(const std::filesystem::path &file, const LoadOptions &options,
                                               ProgressReporter &progress, const StopToken &stop);

// The text of a trace's "distributedInfo" object read as its DistributedInfo: false when the
// text is not a JSON object (peekDistributedInfo reads it from a file's first bytes).
bool parseDistributedInfo(std::string_view object, DistributedInfo &info);

// Convenience for tests and tools: no progress, never stopped.
Result<std::shared_ptr<const Trace>> loadTrace(const std::filesystem::path &file, const LoadOptions &options = {});

} // namespace pyrometer::trace
