#include "app/cli/callcontext.h"

#include "app/cli/output.h"
#include "core/snapshot/reader.h"
#include "core/trace/loader.h"

#include <iostream>

namespace pyrometer::cli {
namespace {
thread_local const CallContext *t_context = nullptr;
} // namespace

const CallContext *callContext()
{
    return t_context;
}

ScopedCallContext::ScopedCallContext(const CallContext &context) : m_previous(t_context)
{
    t_context = &context;
}

ScopedCallContext::~ScopedCallContext()
{
    t_context = m_previous;
}

std::ostream &cliOut()
{
    return t_context ? *t_context->out : std::cout;
}

std::ostream &cliErr()
{
    return t_context ? *t_context->err : std::cerr;
}

std::string notOpenedMessage(const std::string &path)
{
    return path + ": not an open document of this server (open it first; only what is opened is read)";
}

std::shared_ptr<const snapshot::Snapshot> loadSnapshotInput(const std::string &file)
{
    if (t_context) {
        auto loaded = t_context->documents->snapshot(file);
        if (!loaded)
            badInput(notOpenedMessage(file));
        return loaded;
    }
    auto loaded = snapshot::loadSnapshot(file);
    if (!loaded) {
        badInput(loaded.error().message);
        return nullptr;
    }
    return loaded.value();
}

std::shared_ptr<const trace::Trace> loadTraceInput(const std::string &file, const std::string &what)
{
    if (t_context) {
        auto loaded = t_context->documents->trace(file);
        if (!loaded)
            badInput(what + notOpenedMessage(file));
        return loaded ? loaded->trace : nullptr;
    }
    auto loaded = trace::loadTrace(file);
    if (!loaded) {
        badInput(what + loaded.error().message);
        return nullptr;
    }
    return loaded.value();
}

} // namespace pyrometer::cli
