#pragma once

#include "core/torch/modeltypes.h"
#include "core/util/result.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

namespace pyrometer::torch {

// A loaded TorchScript model with its inputs, ready to run: the one piece of core/torch that
// holds libtorch objects, behind a pointer so that this header stays free of torch includes.
// Not thread-safe: use one session from one thread at a time (any thread).
class ModelSession {
public:
    // Loads path (refusing what is not TorchScript, as inspectModel does) and makes random
    // inputs with a fixed seed. With no inputs, uses the ones the archive records (the extra
    // file "example_inputs.txt", written by scripts/make-test-models.py and by
    // `torch.jit.save(m, path, _extra_files={"example_inputs.txt": "1x3x224x224"})`).
    // threads > 0 sets libtorch's intra-op thread count (at::set_num_threads, for the calling
    // thread's parallel regions) until the session is destroyed, which restores the count it
    // found (destroy it on the thread that opened it).
    static Result<std::unique_ptr<ModelSession>> open(const std::filesystem::path &path, std::vector<InputSpec> inputs,
                                                      RunMode mode = RunMode::Inference, int threads = 0);
    ~ModelSession();
    ModelSession(const ModelSession &) = delete;
    ModelSession &operator=(const ModelSession &) = delete;

    const std::filesystem::path &path() const;
    const std::vector<InputSpec> &inputs() const;
    RunMode mode() const;
    // libtorch's intra-op thread count now (at::get_num_threads).
    int threads() const;

    // One forward pass (or train step). A failure (wrong shape, wrong dtype) is libtorch's
    // message on one line, without the C++ backtrace or TorchScript traceback, naming the file.
    std::optional<Error> run();

    // One run that records every top-level operator call with its arguments, output shapes
    // and module (RecordFunction callbacks; what FLOPs are counted from).
    Result<std::vector<OpRecord>> recordOps();

    // `iterations` runs under libtorch's profiler (KINETO state, CPU activity, shapes, memory,
    // module hierarchy), each inside a "ProfilerStep#N" range, N counting from firstStep (a
    // profile recorded in slices numbers its steps on, so no two share a name).
    Result<RecordedProfile> recordProfile(int iterations, int firstStep = 1);

    struct Impl;

private:
    explicit ModelSession(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// Reads the input spec a TorchScript archive records: its extra file "example_inputs.txt", else
// the inputs torch.jit.trace of torch 2.x kept in it; empty if none.
std::string recordedInputSpec(const std::filesystem::path &path);

// The given input shapes, or, when none are given, those the archive records; an Error
// ("path: no input shapes given and the model records none; give them as --input ...") when
// there are neither.
Result<std::vector<InputSpec>> givenOrRecordedInputs(const std::filesystem::path &path, std::vector<InputSpec> given);

} // namespace pyrometer::torch
