#pragma once

#include <QString>

namespace pyrometer::ui {

struct ModelDocument;
struct TraceDocument;

namespace overview {

// The details of an open trace (file, size, events, phases, processes, span, load speed,
// warnings) and of an open model (parameters, modules, forward), as HTML tables.
QString traceCard(const TraceDocument &document);
QString modelCard(const ModelDocument &document);

} // namespace overview
} // namespace pyrometer::ui
