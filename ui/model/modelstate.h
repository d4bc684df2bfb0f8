#pragma once

#include "core/torch/sweep.h"
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

nlohmann::json sweepPointsToJson(const std::vector<torch::SweepPoint> &points);
std::optional<std::vector<torch::SweepPoint>> sweepPointsFromJson(const nlohmann::json &json);
nlohmann::json sweepReportToJson(const torch::SweepReport &report);
std::optional<torch::SweepReport> sweepReportFromJson(const nlohmann::json &json);

} // namespace pyrometer::ui
