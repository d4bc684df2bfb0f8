#pragma once
// Internal to core/torch's .cpp files: includes libtorch. Never include from a public header.

#include "core/torch/session.h"

#include <torch/script.h>

namespace pyrometer::torch {

struct ModelSession::Impl {
    std::filesystem::path path;
    std::vector<InputSpec> specs;
    RunMode mode = RunMode::Inference;
    ::torch::jit::Module module;
    std::vector<c10::IValue> inputs;
    int threadsBefore = 0; // the intra-op thread count open() changed, restored on close; 0: unchanged

    // One forward (or train step); throws what libtorch throws.
    void runOnce();
    void forwardOnly();
    // "path: the model rejected its inputs 1x3x8x8: <libtorch's message>"
    Error runError(const std::string &what) const;
    // Calls run(); what libtorch throws becomes runError's message.
    template <typename Run>
    std::optional<Error> guarded(Run &&run) const
    {
        try {
            run();
        } catch (const c10::Error &error) {
            return runError(error.what_without_backtrace());
        } catch (const std::exception &error) {
            return runError(error.what());
        }
        return std::nullopt;
    }
};

// Random inputs of these shapes with a fixed seed: the same specs give the same tensors. Another
// salt gives other tensors of the same shapes (calibration batches apart from the checked ones).
std::vector<c10::IValue> makeInputs(const std::vector<InputSpec> &specs, std::uint64_t salt = 0);

// Every top-level op of one forward of module in InferenceMode, with its arguments, output
// shapes and module frames (what FLOPs are counted from); throws what libtorch throws.
std::vector<OpRecord> recordForwardOps(::torch::jit::Module &module, const std::vector<c10::IValue> &inputs);

} // namespace pyrometer::torch
