#pragma once
// What `pyrometer-cli compare` takes, for its two forms: variants of one model
// (comparevariants.cpp) and two saved per-layer profiles (compare.cpp).

#include "app/cli/variantoptions.h"

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

// A gate failure message, or empty when the gate passes.
std::string gateFailure(const std::string &what, double baseMs, double otherMs, double limitPercent);

// compare MODEL --variants ...: the variants table or JSON, and its gates' exit status.
int compareModelVariants(const CompareCliOptions &options);

} // namespace pyrometer::cli
