#pragma once

#include "core/report/report.h"
#include "core/report/tracereport.h"
#include "core/snapshot/replay.h"

#include <string>
#include <vector>

namespace pyrometer::report {

// An allocator snapshot's sections: its figures (level 2, titled with its name: segments,
// reserved, allocated and active bytes, each device's peak), then per device what was live at
// its peak by stack (level 3), and per OOM its request, why the allocator could not serve it and
// what was live then (level 3). Ids start with idPrefix.
std::vector<Section> snapshotSections(const snapshot::Snapshot &snapshot,
                                      const std::vector<snapshot::DeviceReplay> &devices,
                                      const std::vector<snapshot::OomReport> &ooms, const std::string &name,
                                      const std::string &idPrefix, const ReportOptions &options = {});

} // namespace pyrometer::report
