#pragma once

#include "ui/timeline/timelineview.h"

#include <cstdint>
#include <optional>
#include <string>

namespace pyrometer::trace {
class Trace;
}

namespace pyrometer::ui::distributed {

// The step annotation named `name` that starts at startNs (on the combined trace's clock) in the
// processes of one rank of a combined trace (those named "<rankLabel> · …"), so that the
// Timeline can scroll to that rank's rows. Nullopt when there is none.
std::optional<timeline::EventRef> findRankStep(const trace::Trace &combined, const std::string &rankLabel,
                                               const std::string &name, std::int64_t startNs);

} // namespace pyrometer::ui::distributed
