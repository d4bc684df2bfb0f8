#include "app/cli/mcp/store.h"

#include "core/util/format.h"

#include <algorithm>

namespace pyrometer::cli::mcp {

nlohmann::json Document::describe() const
{
    nlohmann::json json{{"handle", handle}, {"kind", docKindName(kind)}, {"path", path}, {"memory_bytes", bytes}};
    if (source != path)
        json["source"] = source;
    if (kind == DocKind::Job)
        json["paths"] = paths;
    if (kind == DocKind::Model) {
        if (!python.empty())
            json["python"] = python;
        if (!device.empty())
            json["device"] = device;
    } else {
        json["load_seconds"] = loadSeconds;
    }
    if (trace.trace)
        json["events"] = trace.trace->info.eventCount;
    if (job)
        json["ranks"] = job->ranks.size();
    return json;
}

std::vector<std::shared_ptr<const Document>> DocumentStore::add(const std::shared_ptr<Document> &document)
{
    const std::lock_guard lock(m_mutex);
    document->handle = std::string(docKindName(document->kind)) + "-" + std::to_string(m_next++);
    std::vector<std::shared_ptr<const Document>> closed;
    auto held = [this] {
        std::uint64_t sum = 0;
        for (const auto &[handle, entry] : m_entries)
            sum += entry.document->bytes;
        return sum;
    };
    while (!m_entries.empty() && held() + document->bytes > m_budget) {
        const auto oldest = std::min_element(m_entries.begin(), m_entries.end(), [](const auto &a, const auto &b) {
            return a.second.lastUse < b.second.lastUse;
        });
        closed.push_back(oldest->second.document);
        m_entries.erase(oldest);
    }
    m_entries[document->handle] = {document, ++m_clock, m_next};
    return closed;
}

std::shared_ptr<const Document> DocumentStore::use(const std::string &handle)
{
    const std::lock_guard lock(m_mutex);
    const auto it = m_entries.find(handle);
    if (it == m_entries.end())
        return nullptr;
    it->second.lastUse = ++m_clock;
    return it->second.document;
}

std::shared_ptr<const Document> DocumentStore::close(const std::string &handle)
{
    const std::lock_guard lock(m_mutex);
    const auto it = m_entries.find(handle);
    if (it == m_entries.end())
        return nullptr;
    auto document = it->second.document;
    m_entries.erase(it);
    return document;
}

std::vector<std::shared_ptr<const Document>> DocumentStore::list() const
{
    const std::lock_guard lock(m_mutex);
    std::vector<std::pair<std::uint64_t, std::shared_ptr<const Document>>> ordered;
    for (const auto &[handle, entry] : m_entries)
        ordered.emplace_back(entry.order, entry.document);
    std::sort(ordered.begin(), ordered.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::shared_ptr<const Document>> documents;
    for (auto &[order, document] : ordered)
        documents.push_back(std::move(document));
    return documents;
}

std::uint64_t DocumentStore::bytes() const
{
    const std::lock_guard lock(m_mutex);
    std::uint64_t sum = 0;
    for (const auto &[handle, entry] : m_entries)
        sum += entry.document->bytes;
    return sum;
}

std::string bytesText(std::uint64_t bytes)
{
    return formatBytes(bytes);
}

} // namespace pyrometer::cli::mcp
