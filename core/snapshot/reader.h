#pragma once

#include "core/snapshot/snapshot.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>
#include <memory>
#include <string_view>

namespace pyrometer::snapshot {

// Reads a CUDA allocator snapshot (torch.cuda.memory._dump_snapshot: a pickle of plain dicts and
// lists, protocol 2 to 5, plain or gzipped) into columns. Streams the file: events, blocks and
// frames become rows as soon as their dicts are complete, stacks are interned, and the memory
// kept is the columns plus one copy of each distinct frame and stack. Refuses any pickle that
// names a class or a function (nothing is imported or run), and any structure a snapshot never
// has, with one line that names the file and the byte. Older snapshots (no time_us, no
// allocator_settings) and expandable segments are read as they are. Progress on 0..1000; a stop
// request ends it with an Error whose message ends with "cancelled".
Result<std::shared_ptr<const Snapshot>> loadSnapshot(const std::filesystem::path &file, ProgressReporter &progress,
                                                     const StopToken &stop);
Result<std::shared_ptr<const Snapshot>> loadSnapshot(const std::filesystem::path &file);

// The same from bytes in memory; `name` stands for the file in messages (tests, fuzzing).
Result<std::shared_ptr<const Snapshot>> readSnapshot(std::string_view bytes, std::string_view name);

// True when the file's first bytes are a pickle (or a gzip stream, whose content is then
// taken to be one): what File > Open uses to tell a snapshot from a trace.
bool looksLikeSnapshot(const std::filesystem::path &file);

} // namespace pyrometer::snapshot
