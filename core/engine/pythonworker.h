#pragma once
// The Python engine's worker (resources/engine/pyrometer_engine/) as seen from C++: one run
// serves one request (the model, loaded once, and its tasks in order) and answers in JSON lines.

#include "core/engine/engine.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace pyrometer::engine {

// What the worker said about itself and the model, and every result event, in order.
struct WorkerRun {
    PythonInfo info;
    nlohmann::json loaded;              // the "loaded" event: kind, modules, parameters, inputs
    std::vector<nlohmann::json> events; // result events ("latency", "ops", "profile", "variant", ...)
};

// The worker script: $PYROMETER_ENGINE, else installed beside the executable, else the source tree.
Result<std::filesystem::path> findWorker();

// Runs the worker in options.python on request (the model, device, inputs and tasks are filled in
// by the caller). onEvent (may be empty) hears each result event as it comes, on the calling
// thread. An Error names the interpreter, its torch and what went wrong: the worker's own error
// (no torch, a torch too old, a factory that raised with its traceback's last lines, a wrong
// input shape, out of memory), or how it ended (a signal, an exit without an answer) with its
// last output. A stop ends the worker and gives an Error ending "cancelled".
Result<WorkerRun> runWorker(const Engine &engine, nlohmann::json request, const std::function<void(const nlohmann::json &)> &onEvent,
                            ProgressReporter &progress, const StopToken &stop);

// The operators (each with the device time of what it launched on CUDA) and CPU memory events of
// the worker's "profile" result.
model::RecordedProfile recordedProfile(const nlohmann::json &event);

} // namespace pyrometer::engine
