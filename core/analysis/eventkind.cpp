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
    };
    m_byCategory.assign(trace.strings.size(), EventKind::Other);
    for (const auto &[name, kind] : known) {
        const auto id = trace.strings.find(name);
        if (id.isValid() && id.value < m_byCategory.size())
            m_byCategory[id.value] = kind;
    }
    // The legacy exporter writes no category: every slice it writes is an operator.
    m_byCategory[trace::StringPool::kEmpty.value] = EventKind::Op;
}

EventKind KindTable::kind(const trace::Track &track, std::uint32_t event) const
{
    const auto k = track.kind[event];
    if (k == trace::SliceKind::Instant)
        return EventKind::Other;
    const auto category = track.category[event];
    if (!category.isValid())
        return k == trace::SliceKind::Unfinished ? EventKind::Other : EventKind::Op;
    return category.value < m_byCategory.size() ? m_byCategory[category.value] : EventKind::Other;
}

} // namespace pyrometer::analysis
