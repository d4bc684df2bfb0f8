#pragma once

#include "core/analysis/job.h"
#include "core/analysis/traceindex.h"
#include "core/engine/engine.h"
#include "core/model/modelinfo.h"
#include "core/record/memorycategories.h"
#include "core/util/progress.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <typeindex>
#include <utility>

namespace pyrometer::trace {
class Trace;
}

namespace pyrometer::ui {

// A document's number in the window: given when it opens, never given to another document, so
// a page, a bookmark or a job that names a closed document finds nothing rather than another.
using DocumentId = int;
inline constexpr DocumentId kNoDocument = -1;

// Results computed from a document, shared by every page that asks with the same key (an
// analysis's options and range). Thread-safe: pages compute in their jobs. The newest
// kCapacity results are kept; a result computed while its job was being stopped is not.
class AnalysisCache {
public:
    static constexpr std::size_t kCapacity = 48;

    // The result for key, computed by compute() (which returns a T, or a shared_ptr<const T>
    // that is null when stopped) the first time. Null when stopped before it was computed.
    template <typename T, typename Key, typename Compute>
    std::shared_ptr<const T> get(const Key &key, const StopToken &stop, Compute &&compute) const
    {
        const std::type_index type = typeid(std::pair<Key, T>);
        const auto matches = [&](const Entry &entry) {
            return entry.type == type && *static_cast<const Key *>(entry.key.get()) == key;
        };
        if (auto found = find(matches))
            return std::static_pointer_cast<const T>(found);
        std::shared_ptr<const T> value;
        if constexpr (std::is_convertible_v<decltype(compute()), std::shared_ptr<const T>>)
            value = compute();
        else
            value = std::make_shared<const T>(compute());
        if (!value || stop.stopRequested())
            return nullptr;
        return std::static_pointer_cast<const T>(insert(Entry{type, std::make_shared<const Key>(key), value}, matches));
    }

    std::size_t size() const;

private:
    struct Entry {
        std::type_index type;
        std::shared_ptr<const void> key;
        std::shared_ptr<const void> value;
    };
    std::shared_ptr<const void> find(const std::function<bool(const Entry &)> &matches) const;
    // Keeps the entry that matches already, if another job computed it meanwhile.
    std::shared_ptr<const void> insert(Entry entry, const std::function<bool(const Entry &)> &matches) const;

    mutable std::mutex m_mutex;
    mutable std::list<Entry> m_entries; // most recently used first
};

// An open trace: the trace, its analysis index (built once, in the load's job) and the
// analyses the pages asked of it. Immutable but for the cache; shared with the pages and their
// jobs, and freed when the last of them lets go after it is closed.
struct TraceDocument {
    DocumentId id = kNoDocument;
    QString path;
    QDateTime modified; // the file's time when it was read: a rewritten file is a new trace
    std::shared_ptr<const trace::Trace> trace;
    std::shared_ptr<const analysis::TraceIndex> index;
    AnalysisCache analyses;
    // A recorded program's memory by category (the .pt.memory.json beside the trace), or null.
    std::shared_ptr<const record::MemoryCategories> memoryCategories;
    QString memoryCategoriesError; // why the file beside the trace could not be read
    // A trace that combines ranks of a job (job is that job's id) has a name of its own
    // ("job: 8 ranks (rank-0.json.gz …)") instead of a file's; its path is the job's folder.
    QString title;
    DocumentId job = kNoDocument;

    // The title, else the file's name.
    QString fileName() const;
    // Jobs computing for this document carry it as their owner, so closing it cancels them.
    QString jobOwner() const { return jobOwnerOf(id); }
    static QString jobOwnerOf(DocumentId id);
};

struct ModelDocument {
    DocumentId id = kNoDocument;
    QString path;
    model::ModelInfo info;
    QDateTime modified; // the file's time when it was read
    // The engine that opened it and runs it, as engine::openModel found it: its name, the
    // inputs the model records, why another engine than the usual one runs it, the
    // interpreter's devices (the Python engine).
    engine::Engine engine;
    std::string engineName;
    std::string exampleInputs;
    std::string engineNote;
    std::string batchNote;
    engine::PythonInfo python;

    QString fileName() const;
};

// An open distributed job: its rank files and the figures summarised from them (no trace is
// kept), and the trace that combines the ranks shown in the Timeline, once it is loaded.
struct JobDocument {
    DocumentId id = kNoDocument;
    QStringList files; // the rank traces, as found (a folder's, or the files given)
    analysis::JobFigures figures;
    // Indices into figures.ranks of the ranks in the combined trace, and why those.
    std::vector<std::size_t> timelineRanks;
    QString timelineReason;
    DocumentId timelineTrace = kNoDocument; // until the ranks are loaded, or after it is closed

    // "job: 8 ranks (rank-0.json.gz …)"
    QString title() const;
    // The timeline's index of figures.ranks[rankIndex], or -1 when that rank is not in it.
    int timelinePosition(std::size_t rankIndex) const;
};

} // namespace pyrometer::ui
