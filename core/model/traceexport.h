#pragma once

#include "core/model/profileevents.h"
#include "core/util/result.h"

#include <filesystem>
#include <ostream>
#include <string>

namespace pyrometer::model {

// Writes a recorded profile as Chrome trace-event JSON shaped like Kineto's (what
// torch.profiler's export_chrome_trace writes with Kineto): "X" events with cat "cpu_op"
// (aten ops), "user_annotation" (ProfilerStep#N) or "python_function"-free TorchScript
// ranges, args "Input Dims", "Input type", "Module Hierarchy", "Sequence number"; "[memory]"
// instants (ph "i", s "t", args Device Type, Device Id, Addr, Bytes, Total Allocated, Total
// Reserved); process and thread names as metadata. Timestamps are microseconds with three
// decimals, so nanoseconds survive. Perfetto and chrome://tracing open it.
void writeChromeTrace(std::ostream &out, const RecordedProfile &profile, const std::string &traceName);

Result<std::filesystem::path> writeChromeTrace(const std::filesystem::path &file, const RecordedProfile &profile,
                                               const std::string &traceName);

} // namespace pyrometer::model
