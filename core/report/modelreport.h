#pragma once

#include "core/report/tracereport.h"

namespace pyrometer::model {
struct LatencyReport;
struct ProfileReport;
} // namespace pyrometer::model

namespace pyrometer::report {

// A model run's sections: latency and totals (level 2, titled with the model's file name),
// then its slowest layers by self time (level 3).
std::vector<Section> modelSections(const model::LatencyReport &latency, const model::ProfileReport &profile,
                                   const std::string &idPrefix, const ReportOptions &options = {});

} // namespace pyrometer::report
