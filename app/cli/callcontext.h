#pragma once
// Where a subcommand writes and what it may read. From the command line: standard output and
// error, any path, and the signals (interrupt.h). For a call of the MCP server (app/cli/mcp), which
// runs subcommands in its own threads: the call's own streams, only the documents the call names,
// already loaded, and the call's cancel.
#include "core/analysis/job.h"
#include "core/analysis/traceindex.h"
#include "core/snapshot/snapshot.h"
#include "core/util/progress.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace pyrometer::cli {

// A trace and its analysis index, as the analysis subcommands read it.
struct AnalysisInput {
    std::shared_ptr<const trace::Trace> trace;
    std::shared_ptr<const analysis::TraceIndex> index;
};

// The loaded documents a call may read, by the path it names them with.
class LoadedDocuments {
public:
    virtual ~LoadedDocuments() = default;
    virtual std::optional<AnalysisInput> trace(const std::string &path) const = 0;
    virtual std::shared_ptr<const snapshot::Snapshot> snapshot(const std::string &path) const = 0;
    virtual std::optional<analysis::JobFigures> job(const std::vector<std::string> &paths) const = 0;
};

struct CallContext {
    std::ostream *out = nullptr;
    std::ostream *err = nullptr;
    const LoadedDocuments *documents = nullptr; // never null in a context
    StopToken stop;                             // the call's cancel: a model's run ends as on Ctrl+C
};

// The calling thread's context; null from the command line.
const CallContext *callContext();

// Sets the calling thread's context until destroyed.
class ScopedCallContext {
public:
    explicit ScopedCallContext(const CallContext &context);
    ~ScopedCallContext();
    ScopedCallContext(const ScopedCallContext &) = delete;
    ScopedCallContext &operator=(const ScopedCallContext &) = delete;

private:
    const CallContext *m_previous;
};

// What subcommands write to: the context's streams, else std::cout and std::cerr.
std::ostream &cliOut();
std::ostream &cliErr();

// A snapshot or a trace a subcommand reads beside its main input: the call's loaded one, else
// read from the file. On failure says why (badInput) and returns null.
std::shared_ptr<const snapshot::Snapshot> loadSnapshotInput(const std::string &file);
std::shared_ptr<const trace::Trace> loadTraceInput(const std::string &file, const std::string &what);

// The sentence for a document a call did not open.
std::string notOpenedMessage(const std::string &path);

} // namespace pyrometer::cli
