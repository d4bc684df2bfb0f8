#pragma once

#include <QStringList>

namespace pyrometer::resources {

// The bundled demo (a small TorchScript CNN and a profiler trace of it) lives in the Qt
// resources; the loaders read files, so it is copied to the cache directory first.
// Returns the demo's trace and model paths, or an empty list and a message in *error.
QStringList extractDemo(QString *error);

} // namespace pyrometer::resources
