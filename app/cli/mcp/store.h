#pragma once
// The documents the server keeps loaded between calls, under a memory budget: opening one that
// would go past it closes the least recently used first (a call under way keeps what it reads
// until it ends).
#include "app/cli/callcontext.h"
#include "app/cli/mcp/tools.h"
#include "core/analysis/job.h"
#include "core/snapshot/snapshot.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace pyrometer::cli::mcp {

struct Document {
    std::string handle;
    DocKind kind = DocKind::Trace;
    std::string path;               // what the subcommands are given: the file read, the model
    std::vector<std::string> paths; // a job's paths
    std::string source;             // what the client named (a log folder, a job's first path)
    AnalysisInput trace;
    std::shared_ptr<const snapshot::Snapshot> snapshot;
    std::shared_ptr<const analysis::JobFigures> job;
    std::string python; // a model's engine
    std::string device;
    std::uint64_t bytes = 0; // memory held, estimated
    double loadSeconds = 0;

    nlohmann::json describe() const;
};

class DocumentStore {
public:
    explicit DocumentStore(std::uint64_t budgetBytes) : m_budget(budgetBytes) {}

    // Keeps document under a new handle (set on it); returns the documents closed to make room.
    std::vector<std::shared_ptr<const Document>> add(const std::shared_ptr<Document> &document);
    // The document and its use now, or null.
    std::shared_ptr<const Document> use(const std::string &handle);
    std::shared_ptr<const Document> close(const std::string &handle);
    std::vector<std::shared_ptr<const Document>> list() const; // by handle
    std::uint64_t bytes() const;
    std::uint64_t budget() const { return m_budget; }

private:
    struct Entry {
        std::shared_ptr<const Document> document;
        std::uint64_t lastUse = 0;
        std::uint64_t order = 0;
    };
    mutable std::mutex m_mutex;
    std::uint64_t m_budget;
    std::uint64_t m_clock = 0;
    std::uint64_t m_next = 1;
    std::map<std::string, Entry> m_entries;
};

// "512.0 MiB"
std::string bytesText(std::uint64_t bytes);

} // namespace pyrometer::cli::mcp
