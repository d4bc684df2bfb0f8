#pragma once

#include "core/model/sweep.h"
#include "ui/model/profilerun.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace pyrometer::ui {

// The Model page's results as they travel in a session file: a whole profile run (the
// latency samples behind the histogram, the per-layer rows; not the recorded events, whose
// trace is on disk at tracePath) and a sweep (its points and summaries). Reading returns
// nullopt for anything that is not what writing wrote.
nlohmann::json profileRunToJson(const ProfileRun &run);
std::optional<ProfileRun> profileRunFromJson(const nlohmann::json &json);

nlohmann::json sweepPointsToJson(const std::vector<model::SweepPoint> &points);
std::optional<std::vector<model::SweepPoint>> sweepPointsFromJson(const nlohmann::json &json);
nlohmann::json sweepReportToJson(const model::SweepReport &report);
std::optional<model::SweepReport> sweepReportFromJson(const nlohmann::json &json);

} // namespace pyrometer::ui
