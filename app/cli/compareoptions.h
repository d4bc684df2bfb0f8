#pragma once
// What `pyrometer-cli compare` takes, for its two forms: variants of one model
// (comparevariants.cpp) and two saved per-layer profiles (compare.cpp).

#include "app/cli/variantoptions.h"
#include "core/util/noise.h"

#include <optional>
#include <string>
#include <vector>

namespace pyrometer::cli {

// The variants compared when --variants is not given, per engine.
inline constexpr const char *kEmbeddedVariants = "baseline,frozen,channels_last,int8,int8_static,bf16";
inline constexpr const char *kPythonVariants = "baseline,compile,channels_last,int8,bf16";

struct CompareCliOptions {
    ModelRunOptions run;
    std::vector<std::string> files;
    std::optional<double> failIfSlower;
    std::string gate;
    std::string data;   // --data: inputs saved by torch.save
    std::string labels; // --labels: their int64 class labels
    std::optional<double> maxAccuracyDrop;
};

// What --fail-if-slower says: a failure, or a note that the slowdown is within noise (the 95%
// confidence interval of other/base reaches down to the limit's ratio: more runs would tell), or
// nothing when it passes.
struct GateVerdict {
    bool fails = false;
    std::string text;
};
// Whether a ratio's 95% interval (other over base) reaches down to the limit's ratio, 1 +
// limitPercent / 100: a slowdown past the limit by the means that the runs cannot tell from
// within it.
inline bool reachesLimit(const std::optional<Interval> &ratio, double limitPercent)
{
    return ratio && ratio->low <= 1.0 + limitPercent / 100.0;
}

// base and other: the timed runs' latency (ms); without counts (n < 2) the means alone judge.
GateVerdict gateVerdict(const std::string &what, const Sample &base, const Sample &other, double limitPercent);

// compare MODEL --variants ...: the variants table or JSON, and its gates' exit status.
int compareModelVariants(const CompareCliOptions &options);

} // namespace pyrometer::cli
