#pragma once
// The two model engines behind one interface: the embedded one (core/torch: TorchScript through
// the libtorch Pyrometer links, CPU) and the Python one (the user's interpreter running
// resources/engine/pyrometer_engine/: torch.export programs, nn.Module factories, TorchScript of
// any version, CPU or CUDA). Pages and the CLI call these; each report's `engine` says which ran.

#include "core/model/flops.h"
#include "core/model/latency.h"
#include "core/model/layerprofile.h"
#include "core/model/sweep.h"
#include "core/model/variant.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace pyrometer::engine {

struct Engine {
    // The interpreter of the Python engine ("python3", "/opt/venv/bin/python"); empty: the
    // embedded engine, unless the model is one only Python opens (see needsPython), which then
    // runs in defaultPython().
    std::string python;
    std::string device = "cpu"; // "cpu", "cuda", "cuda:1": the Python engine only
    bool operator==(const Engine &) const = default;
};

// What an interpreter's torch offers, as its worker said.
struct PythonInfo {
    std::string python;     // as given
    std::string executable; // sys.executable
    std::string pythonVersion;
    std::string torchVersion;
    std::vector<std::string> devices; // "cpu", "cuda:0", ...
    std::vector<std::string> deviceNames;
    std::string cudaUnavailable; // why there is no CUDA device; empty when there is one
    bool kineto = false;
    bool exportSupported = false;
    bool compileSupported = false;
};

// A .pt2 (torch.export), a Python file or "model.py:factory": what the embedded engine cannot open.
bool needsPython(const std::filesystem::path &model);

// The interpreter used when none is chosen: $PYROMETER_PYTHON, else "python3".
std::string defaultPython();

// The engine that runs model: the given one, or the Python engine in defaultPython() where the
// model needs it.
Engine resolveEngine(Engine engine, const std::filesystem::path &model);

bool isPython(const Engine &engine);

// The embedded engine's libtorch, as compiled in ("1.13.0").
std::string embeddedTorchVersion();

// "embedded libtorch 1.13.0 · cpu"; "Python 3.13.5 · torch 2.6.0 · cuda".
std::string embeddedEngineName();
std::string pythonEngineName(const PythonInfo &info, const std::string &device);

// Asks the interpreter what its torch offers (a worker run with no model).
Result<PythonInfo> probePython(const std::string &python, const StopToken &stop);

// The embedded engine's message for a model it cannot load, with what to do: the Python engine
// in `python` (the interpreter it would use) for a .pt2, a factory, or TorchScript calling an op
// this libtorch lacks.
std::string offerPythonEngine(const std::string &message, const std::filesystem::path &model, const std::string &python);

// A model as an engine opened it.
struct OpenedModel {
    model::ModelInfo info;
    Engine engine;             // the engine that opened it (the Python one where the embedded one could not)
    std::string engineName;    // "embedded libtorch 1.13.0 · cpu"
    std::string exampleInputs; // the inputs it records or its factory returned, "1x3x224x224"; empty: none
    std::string kind;          // "torchscript", "export", "factory"
    std::string batchNote;     // "exported with a fixed batch of 1: ..."; empty when the batch may vary
    // Why another engine than the one asked for opened it ("the embedded libtorch 1.13.0 cannot
    // load it: Unknown builtin op: aten::scaled_dot_product_attention"); empty when none.
    std::string note;
    PythonInfo python; // the interpreter's torch, for the Python engine
};

// Opens model in the engine: the embedded engine reads it without running it; the Python engine
// loads it in a worker. With fallback, a file the embedded engine cannot load (a TorchScript op
// its libtorch lacks) is tried in the Python engine in `fallbackPython`; an Error then gives both
// engines' reasons.
Result<OpenedModel> openModel(const Engine &engine, const std::filesystem::path &model, const std::string &fallbackPython = {},
                              const StopToken &stop = {});

// A per-layer profile of one variant (torch::profileVariant in the embedded engine; the Python
// engine profiles the variant it builds).
Result<model::ProfileReport> profileVariant(const Engine &engine, const std::filesystem::path &model,
                                            const model::Variant &variant, const model::RunOptions &options,
                                            ProgressReporter &progress, const StopToken &stop);

Result<model::LatencyReport> measureLatency(const Engine &engine, const std::filesystem::path &model,
                                            const model::RunOptions &options, ProgressReporter &progress,
                                            const StopToken &stop);

// The profiled run's trace: the embedded engine's events are exported by the caller; the Python
// engine writes torch.profiler's own trace to traceOut (empty: a temporary file, removed).
Result<model::ProfileReport> profileLayers(const Engine &engine, const std::filesystem::path &model,
                                           const model::RunOptions &options, ProgressReporter &progress,
                                           const StopToken &stop, const std::filesystem::path &traceOut = {});

// Timed runs, then a per-layer profile: what a Run profile does. The Python engine runs both in
// one worker (the model loaded once); the embedded engine runs measureLatency, then
// profileLayers. Progress spans both.
struct ProfiledModel {
    model::LatencyReport latency;
    model::ProfileReport profile;
};
Result<ProfiledModel> measureAndProfile(const Engine &engine, const std::filesystem::path &model,
                                        const model::RunOptions &latencyOptions,
                                        const model::RunOptions &profileOptions, ProgressReporter &progress,
                                        const StopToken &stop, const std::filesystem::path &traceOut = {});

Result<model::FlopsReport> countFlops(const Engine &engine, const std::filesystem::path &model,
                                      const std::vector<model::InputSpec> &inputs, const StopToken &stop = {});

Result<model::SweepReport> runSweep(const Engine &engine, const std::filesystem::path &model,
                                    const model::SweepOptions &options, const model::SweepCallback &onPoint,
                                    ProgressReporter &progress, const StopToken &stop);

// The input shapes a TorchScript file records (its extra file "example_inputs.txt", else the
// inputs torch.jit.trace of torch 2.x kept in it), read without running it; empty if none.
std::string recordedInputSpec(const std::filesystem::path &model);

// The shapes and types of a batch of a data file's samples (torch.save files, read by the
// embedded engine's unpickler); with BatchDim::Swept, every input's first dimension is the batch
// a sweep varies. An Error names the file and what is wrong with it.
Result<std::vector<model::InputSpec>> inputsOfData(const std::filesystem::path &data,
                                                   model::BatchDim batch = model::BatchDim::Fixed);

// Builds a variant of a TorchScript model in the embedded engine and saves it as TorchScript at
// out, recording inputs (empty: those the model records) as its example inputs. Returns what
// the variant applied; the baseline and threads=N are refused.
Result<std::string> exportVariant(const std::filesystem::path &model, const model::Variant &variant,
                                  const std::vector<model::InputSpec> &inputs, const std::filesystem::path &out);

Result<model::CompareReport> compareVariants(const Engine &engine, const std::filesystem::path &model,
                                             const model::CompareOptions &options, const model::VariantCallback &onRow,
                                             ProgressReporter &progress, const StopToken &stop);

} // namespace pyrometer::engine
