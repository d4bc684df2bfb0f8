#include "core/analysis/eventkind.h"

#include <utility>

namespace pyrometer::analysis {

std::string_view kindName(EventKind kind)
{
    switch (kind) {
    case EventKind::Op: return "op";
    case EventKind::Python: return "python";
    case EventKind::Runtime: return "runtime";
    case EventKind::Kernel: return "kernel";
    case EventKind::Memcpy: return "memcpy";
    case EventKind::Memset: return "memset";
    case EventKind::GpuAnnotation: return "gpu_annotation";
    case EventKind::Sync: return "sync";
    case EventKind::Other: break;
    }
    return "other";
}

bool isGraphLaunchName(std::string_view name)
{
    return name.find("GraphLaunch") != std::string_view::npos;
}

KindTable::KindTable(const trace::Trace &trace)
{
    static const std::pair<std::string_view, EventKind> known[] = {
        {"cpu_op", EventKind::Op},
        {"user_annotation", EventKind::Op},
        {"Operator", EventKind::Op},
        {"operator", EventKind::Op},
        {"python_function", EventKind::Python},
        {"cuda_runtime", EventKind::Runtime},
        {"cuda_driver", EventKind::Runtime},
        {"Runtime", EventKind::Runtime},
        {"runtime", EventKind::Runtime},
        {"kernel", EventKind::Kernel},
        {"Kernel", EventKind::Kernel},
        {"gpu_memcpy", EventKind::Memcpy},
        {"Memcpy", EventKind::Memcpy},
        {"gpu_memset", EventKind::Memset},
        {"Memset", EventKind::Memset},
        {"gpu_user_annotation", EventKind::GpuAnnotation},
        {"cuda_sync", EventKind::Sync},
        // Other accelerators name their own categories (Kineto's ActivityType names).
        {"mtia_runtime", EventKind::Runtime},
        {"mtia_ccp_events", EventKind::Kernel}, // refined by name below
        {"xpu_runtime", EventKind::Runtime},
        {"privateuse1_runtime", EventKind::Runtime},
        {"privateuse1_driver", EventKind::Runtime},
        {"glow_runtime", EventKind::Runtime},
        {"hpu_op", EventKind::Kernel},
    };
    // MTIA's command processor writes transfers and stream waits in the same category as its
    // kernels: a wait is not work, and a DMA request is a copy.
    static const std::pair<std::string_view, EventKind> mtiaEvents[] = {
        {"dma_request", EventKind::Memcpy},
        {"event_wait", EventKind::Sync},
        {"event_record", EventKind::Sync},
    };
    m_byCategory.assign(trace.strings.size(), EventKind::Other);
    for (const auto &[name, kind] : known) {
        const auto id = trace.strings.find(name);
        if (id.isValid() && id.value < m_byCategory.size())
            m_byCategory[id.value] = kind;
    }
    // The legacy exporter writes no category: every slice it writes is an operator.
    m_byCategory[trace::StringPool::kEmpty.value] = EventKind::Op;
    if (const auto mtia = trace.strings.find("mtia_ccp_events"); mtia.isValid()) {
        for (const auto &[name, kind] : mtiaEvents)
            if (const auto id = trace.strings.find(name); id.isValid())
                m_byName.push_back({mtia, id, kind});
    }
    // A category no table names, whose events end a launch flow (ac2g): device work of an
    // accelerator this table does not know yet; the flows' starts are its runtime's calls.
    const auto launchFlow = trace.strings.find("ac2g");
    if (!launchFlow.isValid())
        return;
    const auto categoryAt = [&](const trace::FlowEnd &end) {
        if (!end.track.isValid() || !end.event.isValid())
            return trace::StringId();
        return trace.track(end.track).category[end.event.value];
    };
    for (const auto &flow : trace.flows) {
        if (flow.category != launchFlow)
            continue;
        const auto device = categoryAt(flow.to);
        const auto host = categoryAt(flow.from);
        if (device.isValid() && device.value < m_byCategory.size() && m_byCategory[device.value] == EventKind::Other &&
            device != host) {
            m_byCategory[device.value] = EventKind::Kernel;
            if (host.isValid() && host.value < m_byCategory.size() && m_byCategory[host.value] == EventKind::Other)
                m_byCategory[host.value] = EventKind::Runtime;
        }
    }
}

EventKind KindTable::kind(const trace::Track &track, std::uint32_t event) const
{
    const auto k = track.kind[event];
    if (k == trace::SliceKind::Instant)
        return EventKind::Other;
    const auto category = track.category[event];
    if (!category.isValid())
        return k == trace::SliceKind::Unfinished ? EventKind::Other : EventKind::Op;
    for (const auto &rule : m_byName)
        if (rule.category == category && rule.name == track.eventName[event])
            return rule.kind;
    return category.value < m_byCategory.size() ? m_byCategory[category.value] : EventKind::Other;
}

} // namespace pyrometer::analysis
