#pragma once

#include "core/analysis/deviceroof.h"
#include "core/engine/engine.h"
#include "core/model/latency.h"
#include "core/model/layerprofile.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>
#include <string>

namespace pyrometer::ui {

// What the Model page asks for: the form's values, as text where the user typed text, so
// that a bad spec fails inside the job like any other error and reaches the banner.
struct ProfileRequest {
    std::filesystem::path model;
    engine::Engine engine; // empty python: the embedded engine
    // "1x3x224x224,1x10:int64", or samples saved by torch.save ("val.pt", relative to the
    // model's folder), profiled at their shapes; empty: the inputs the model records.
    std::string inputSpec;
    int warmup = 10;
    int iterations = 50;
    int threads = 0;
    model::RunMode mode = model::RunMode::Inference;
    // The recorded trace is written here as <model>-<n>.pt.trace.json; empty: not written.
    std::filesystem::path traceDirectory;
    // The layers are placed under the roof of what ran them (engine::engineRoof): this CPU's,
    // measured once and cached in this file, or the GPU's from the table. Nothing: no roof.
    std::optional<std::filesystem::path> cpuRoofCache;
    // Preferences' roof, for a GPU the device table lacks.
    std::optional<analysis::DeviceRoof> fallbackRoof;
    bool operator==(const ProfileRequest &) const = default;
};

struct ProfileRun {
    model::LatencyReport latency;
    model::ProfileReport profile;
    std::filesystem::path tracePath; // empty when not written
    // What the layers are placed under in the table's roofline columns; nothing when not asked
    // for, or when it could not be had (a GPU the table lacks), and then why (roofNote).
    std::optional<analysis::DeviceRoof> roof;
    std::string roofNote;
};

// The roof a profile's layers go under: the engine's (engine::engineRoof's answer), else the
// fallback (Preferences') for a GPU the table lacks; with none, the note says why.
std::pair<std::optional<analysis::DeviceRoof>, std::string>
chooseRoof(const Result<std::optional<analysis::DeviceRoof>> &engineRoof,
           const std::optional<analysis::DeviceRoof> &fallback);

// The file this CPU's measured roof is cached in: the CLI's ($XDG_CACHE_HOME/pyrometer/
// cpu-roof.json), found through QStandardPaths so that tests in its test mode keep to their own.
std::filesystem::path cpuRoofCacheFile();

// A reporter whose 0..1000 fills [from, to] of the parent's (which must outlive it).
ProgressReporter subRange(ProgressReporter &parent, int from, int to);

// Runs profiled iterations: enough for stable per-layer means, few enough to keep the
// recorded trace small.
int profiledIterations(int timedIterations);

// Times the model (cold, then warm runs), profiles it layer by layer, writes the trace and
// finds the roof (a CPU's is measured the first time, about three seconds): the whole of one
// "Run profile", on a worker thread. Progress spans the three parts; stop
// is checked between runs.
Result<ProfileRun> runProfile(const ProfileRequest &request, ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::ui
