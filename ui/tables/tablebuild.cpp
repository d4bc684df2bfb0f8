#include "ui/tables/tablebuild.h"

#include "core/analysis/kernelnames.h"
#include "core/analysis/kerneltypes.h"
#include "core/analysis/opnames.h"
#include "ui/roofline/rooflinecells.h"
#include "ui/shell/displaytext.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <map>
#include <utility>

namespace pyrometer::ui::tables {

namespace {

// Graph ids listed in a kernel's row before the rest are counted.
constexpr std::size_t kGraphIdsShown = 4;

// Sums of a group row's subtree, filled bottom-up.
struct GroupSums {
    quint64 calls = 0;
    qint64 selfDirect = 0, selfSubtree = 0;
    qint64 deviceDirect = 0, deviceSubtree = 0;
    qint64 cpuMemDirect = 0, cpuMemSubtree = 0;
    qint64 deviceMemDirect = 0, deviceMemSubtree = 0;
};

double percentOf(qint64 part, qint64 whole)
{
    return whole > 0 ? 100.0 * double(part) / double(whole) : 0.0;
}

std::string streamKey(std::int32_t device, std::int32_t stream)
{
    return std::to_string(device) + ":" + std::to_string(stream);
}

// The roofline rows of known work by (name, second key): the shape of op rows, or a kernel's
// "device:stream" (empty when the table is not per stream: the kernel's rows on every stream
// summed and placed again).
class WorkRows {
public:
    enum Rows { Ops, Kernels, KernelsPerStream };
    WorkRows(const analysis::Roofline *work, Rows rows) : m_work(work)
    {
        if (!work)
            return;
        for (const auto &row : work->rows) {
            if (!row.known())
                continue;
            const auto key = std::make_pair(row.name, rows == Ops              ? row.shape
                                                      : rows == Kernels ? std::string()
                                                                        : streamKey(row.device, row.stream));
            auto [it, added] = m_rows.try_emplace(key, row);
            if (added)
                continue;
            auto &sum = it->second;
            sum.calls += row.calls;
            sum.timeNs += row.timeNs;
            sum.flops += row.flops;
            sum.bytes = sum.bytes < 0 || row.bytes < 0 ? analysis::OpWork::kUnknown : sum.bytes + row.bytes;
            m_replace.push_back(key);
        }
        for (const auto &key : m_replace) {
            auto &row = m_rows[key];
            row.intensity = row.achievedFlops = row.achievedBandwidth = row.percentOfRoof = analysis::OpWork::kUnknown;
            row.roof.reset();
            row.bound = analysis::Bound::Unknown;
            analysis::placeUnderRoof(row, work->device);
        }
    }

    bool active() const { return m_work != nullptr; }
    bool gpu() const { return m_work && m_work->gpu; }

    const analysis::RooflineRow *find(const std::string &name, const std::string &second) const
    {
        const auto it = m_rows.find({name, second});
        return it == m_rows.end() ? nullptr : &it->second;
    }

private:
    const analysis::Roofline *m_work;
    std::map<std::pair<std::string, std::string>, analysis::RooflineRow> m_rows;
    std::vector<std::pair<std::string, std::string>> m_replace;
};

} // namespace

namespace {

void setCell(std::vector<QVariant> &values, int col, QVariant value)
{
    if (col >= 0)
        values[std::size_t(col)] = std::move(value);
}

// The operators table's columns, in order (-1: not shown).
struct OpColumns {
    int name = -1, shape = -1, calls = -1, total = -1, self = -1, avg = -1, min = -1, max = -1, selfPct = -1,
        totalPct = -1;
    int devSelf = -1, devTotal = -1, cpuMemSelf = -1, cpuMem = -1, devMemSelf = -1, devMem = -1;
    int work = -1; // the first of the roofline's columns
};

OpColumns addOpColumns(TableTree &tree, const OpTreeOptions &options, const WorkRows &work)
{
    const auto add = [&tree](const QString &title, ColumnKind kind, const QString &exportTitle) {
        tree.columns.push_back({title, kind, exportTitle});
        return int(tree.columns.size()) - 1;
    };
    OpColumns c;
    c.name = add(column::kName, ColumnKind::Text, QStringLiteral("name"));
    if (options.grouping == analysis::OpGrouping::Shape)
        c.shape = add(column::kShape, ColumnKind::Text, QStringLiteral("input_dims"));
    c.calls = add(column::kCalls, ColumnKind::Count, QStringLiteral("calls"));
    c.total = add(column::kTotal, ColumnKind::Duration, QStringLiteral("total_us"));
    c.self = add(column::kSelf, ColumnKind::Duration, QStringLiteral("self_us"));
    c.avg = add(column::kAvg, ColumnKind::Duration, QStringLiteral("avg_us"));
    c.min = add(column::kMin, ColumnKind::Duration, QStringLiteral("min_us"));
    c.max = add(column::kMax, ColumnKind::Duration, QStringLiteral("max_us"));
    c.selfPct = add(column::kSelfPercent, ColumnKind::Percent, QStringLiteral("self_pct"));
    c.totalPct = add(column::kTotalPercent, ColumnKind::Percent, QStringLiteral("total_pct"));
    if (options.device) {
        c.devSelf = add(column::kDeviceSelf, ColumnKind::Duration, QStringLiteral("device_self_us"));
        c.devTotal = add(column::kDeviceTotal, ColumnKind::Duration, QStringLiteral("device_total_us"));
    }
    if (options.memory) {
        // What the profiler's memory events sum, as torch.profiler's tables do: not what was held
        // at once (the Memory page's peak), so a row can pass the device's memory and a parent
        // that frees more than it allocates goes negative.
        const auto memory = [&](const QString &title, const QString &exportTitle, const char *tip) {
            const int at = add(title, ColumnKind::Bytes, exportTitle);
            tree.columns[std::size_t(at)].tooltip = QCoreApplication::translate("Tables", tip);
            return at;
        };
        c.cpuMemSelf =
            memory(column::kCpuMemSelf, QStringLiteral("self_cpu_memory_bytes"),
                   "Bytes allocated minus bytes freed on the CPU by the op itself, summed over all its calls "
                   "(not what was held at once); negative when it freed more than it allocated.");
        c.cpuMem = memory(column::kCpuMem, QStringLiteral("cpu_memory_bytes"),
                          "Bytes allocated minus bytes freed on the CPU by the op and the ops inside it, summed over "
                          "all its calls: not what was held at once (the Memory page's peak says that).");
        if (options.device) {
            c.devMemSelf = memory(column::kDeviceMemSelf, QStringLiteral("self_device_memory_bytes"),
                                  "Bytes allocated minus bytes freed on the device by the op itself, summed over all "
                                  "its calls (not what was held at once); negative when it freed more than it "
                                  "allocated, as a step's range does with what its ops allocated.");
            c.devMem = memory(column::kDeviceMem, QStringLiteral("device_memory_bytes"),
                              "Bytes allocated minus bytes freed on the device by the op and the ops inside it, "
                              "summed over all its calls: an op called 100 times that allocates 1 GiB each time shows "
                              "100 GiB. Not what was held at once: the Memory page's peak says that.");
        }
    }
    if (work.active()) {
        c.work = int(tree.columns.size());
        for (auto &col : roofline::rooflineColumns(work.gpu()))
            tree.columns.push_back(std::move(col));
    }
    return c;
}

// The group rows of a module path or a stack ("a/b/c", or frames innermost first): the node
// of the innermost, made as needed, and its path (-1 and empty for a row of no group).
struct GroupNodes {
    TableTree &tree;
    const OpColumns &columns;
    analysis::OpGrouping grouping;
    std::map<std::pair<int, QString>, int> nodes; // (parent, segment) -> node
    std::vector<GroupSums> sums;                  // by node id; only group rows use theirs

    QChar separator() const { return grouping == analysis::OpGrouping::Module ? QLatin1Char('/') : QLatin1Char(';'); }

    std::pair<int, QString> nodeOf(const std::string &group)
    {
        QStringList segments;
        if (grouping == analysis::OpGrouping::Module) {
            segments = qs(group).split(QLatin1Char('/'), Qt::SkipEmptyParts);
        } else {
            // Stack frames come innermost first; the tree reads from the outermost.
            const auto frames = qs(group).split(QLatin1Char(';'), Qt::SkipEmptyParts);
            for (auto it = frames.rbegin(); it != frames.rend(); ++it)
                segments.push_back(*it);
        }
        int parent = -1;
        QString path;
        for (const auto &segment : segments) {
            path = path.isEmpty() ? segment : path + separator() + segment;
            auto [it, inserted] = nodes.try_emplace({parent, segment}, -1);
            if (inserted) {
                std::vector<QVariant> values(tree.columns.size());
                values[std::size_t(columns.name)] = segment;
                it->second = tree.addNode(parent, std::move(values), {}, path);
                sums.resize(tree.nodes.size());
            }
            parent = it->second;
        }
        return {parent, path};
    }
};

std::vector<QVariant> opValues(const analysis::OpRow &row, const OpColumns &c, std::size_t count, const WorkRows &work)
{
    std::vector<QVariant> values(count);
    setCell(values, c.name, qs(row.name));
    setCell(values, c.shape, qs(row.group));
    setCell(values, c.calls, quint64(row.calls));
    setCell(values, c.total, qint64(row.totalNs));
    setCell(values, c.self, qint64(row.selfNs));
    setCell(values, c.avg, qint64(row.avgNs()));
    setCell(values, c.min, qint64(row.minNs));
    setCell(values, c.max, qint64(row.maxNs));
    setCell(values, c.selfPct, row.selfPercent);
    setCell(values, c.totalPct, row.totalPercent);
    setCell(values, c.devSelf, qint64(row.deviceSelfNs));
    setCell(values, c.devTotal, qint64(row.deviceTotalNs));
    setCell(values, c.cpuMemSelf, qint64(row.cpuMemSelfBytes));
    setCell(values, c.cpuMem, qint64(row.cpuMemTotalBytes));
    setCell(values, c.devMemSelf, qint64(row.deviceMemSelfBytes));
    setCell(values, c.devMem, qint64(row.deviceMemTotalBytes));
    if (c.work >= 0) {
        const auto *known = work.find(row.name, row.group);
        const auto cells = known || !analysis::opnames::doesNoWork(row.name)
                               ? roofline::rooflineCells(known, work.gpu())
                               : roofline::noWorkCells();
        std::copy(cells.begin(), cells.end(), values.begin() + c.work);
    }
    return values;
}

void addToGroup(GroupSums &s, const analysis::OpRow &row)
{
    s.calls += row.calls;
    s.selfDirect += row.selfNs;
    s.selfSubtree += row.selfNs;
    s.deviceDirect += row.deviceSelfNs;
    s.deviceSubtree += row.deviceSelfNs;
    s.cpuMemDirect += row.cpuMemSelfBytes;
    s.cpuMemSubtree += row.cpuMemSelfBytes;
    s.deviceMemDirect += row.deviceMemSelfBytes;
    s.deviceMemSubtree += row.deviceMemSelfBytes;
}

// Children have greater ids than their parents: one pass from the back completes subtrees.
void completeGroups(TableTree &tree, const std::vector<GroupSums> &groupSums, const OpColumns &c, qint64 selfSumNs)
{
    auto sums = groupSums;
    sums.resize(tree.nodes.size());
    for (int id = int(tree.nodes.size()) - 1; id >= 0; --id) {
        auto &n = tree.nodes[std::size_t(id)];
        if (n.children.empty())
            continue; // an op; group rows always have children
        const auto &s = sums[std::size_t(id)];
        if (n.parent >= 0) {
            auto &p = sums[std::size_t(n.parent)];
            p.calls += s.calls;
            p.selfSubtree += s.selfSubtree;
            p.deviceSubtree += s.deviceSubtree;
            p.cpuMemSubtree += s.cpuMemSubtree;
            p.deviceMemSubtree += s.deviceMemSubtree;
        }
        setCell(n.values, c.calls, s.calls);
        setCell(n.values, c.self, s.selfDirect);
        setCell(n.values, c.total, s.selfSubtree);
        setCell(n.values, c.selfPct, percentOf(s.selfDirect, selfSumNs));
        setCell(n.values, c.totalPct, percentOf(s.selfSubtree, selfSumNs));
        setCell(n.values, c.devSelf, s.deviceDirect);
        setCell(n.values, c.devTotal, s.deviceSubtree);
        setCell(n.values, c.cpuMemSelf, s.cpuMemDirect);
        setCell(n.values, c.cpuMem, s.cpuMemSubtree);
        setCell(n.values, c.devMemSelf, s.deviceMemDirect);
        setCell(n.values, c.devMem, s.deviceMemSubtree);
    }
}

} // namespace

TableTree buildOpTree(const analysis::OpTable &table, const OpTreeOptions &options)
{
    using analysis::OpGrouping;
    TableTree tree;
    const bool nested = options.grouping == OpGrouping::Module || options.grouping == OpGrouping::Stack;
    const WorkRows work(nested ? nullptr : options.work, WorkRows::Ops);
    const auto columns = addOpColumns(tree, options, work);
    tree.defaultSortColumn = columns.self;
    GroupNodes groups{tree, columns, options.grouping, {}, {}};
    for (const auto &row : table.rows) {
        const auto [parent, path] =
            nested && !row.group.empty() ? groups.nodeOf(row.group) : std::pair<int, QString>(-1, QString());
        const QString name = qs(row.name);
        const QString leafPath = path.isEmpty() ? QString() : path + groups.separator() + name;
        tree.addNode(parent, opValues(row, columns, tree.columns.size(), work), name, leafPath);
        groups.sums.resize(tree.nodes.size());
        if (parent >= 0)
            addToGroup(groups.sums[std::size_t(parent)], row);
    }
    completeGroups(tree, groups.sums, columns, table.selfSumNs);
    return tree;
}

TableTree buildKernelTree(const analysis::KernelTable &table, const analysis::Roofline *roofline)
{
    const bool perStream = !table.rows.empty() && table.rows.front().stream >= 0;
    const WorkRows work(roofline, perStream ? WorkRows::KernelsPerStream : WorkRows::Kernels);
    TableTree tree;
    tree.columns = {{column::kName, ColumnKind::Text, QStringLiteral("name")},
                    {column::kCount, ColumnKind::Count, QStringLiteral("count")},
                    {column::kTotal, ColumnKind::Duration, QStringLiteral("total_us")},
                    {column::kAvg, ColumnKind::Duration, QStringLiteral("avg_us")},
                    {column::kMin, ColumnKind::Duration, QStringLiteral("min_us")},
                    {column::kMax, ColumnKind::Duration, QStringLiteral("max_us")},
                    {column::kGpuPercent, ColumnKind::Percent, QStringLiteral("pct")},
                    {column::kLaunchOp, ColumnKind::Text, QStringLiteral("op")},
                    {column::kDevice, ColumnKind::Id, QStringLiteral("device")},
                    {column::kStream, ColumnKind::Id, QStringLiteral("stream")},
                    {column::kRegion, ColumnKind::Text, QStringLiteral("compiled_region")},
                    {column::kGraphs, ColumnKind::Text, QStringLiteral("graph_ids")},
                    {column::kSource, ColumnKind::Text, QStringLiteral("kernel_source")}};
    const std::size_t plainColumns = tree.columns.size();
    if (work.active())
        for (auto &c : roofline::rooflineColumns(true))
            tree.columns.push_back(std::move(c));
    // Group rows leave the roofline columns blank.
    const auto widen = [&](std::vector<QVariant> values) {
        values.resize(tree.columns.size());
        return values;
    };
    tree.defaultSortColumn = 2;
    // Rows are grouped by kernel type (GEMM, attention, communication, memory, ...), so that
    // kernels rank among their kind and each kind's share reads at once; one type alone is
    // not grouped.
    std::vector<analysis::KernelType> types;
    types.reserve(table.rows.size());
    std::array<bool, analysis::kKernelTypeCount> present{};
    for (const auto &row : table.rows) {
        types.push_back(analysis::classifyKernel(row.kind, row.name));
        present[std::size_t(types.back())] = true;
    }
    const bool grouped = std::count(present.begin(), present.end(), true) > 1;
    std::array<int, analysis::kKernelTypeCount> groups;
    groups.fill(-1);
    if (grouped) {
        for (std::size_t t = 0; t < analysis::kKernelTypeCount; ++t) {
            if (!present[t])
                continue;
            std::uint64_t count = 0;
            std::int64_t total = 0, minNs = 0, maxNs = 0;
            double percent = 0;
            bool first = true;
            for (std::size_t r = 0; r < table.rows.size(); ++r) {
                if (std::size_t(types[r]) != t)
                    continue;
                const auto &row = table.rows[r];
                count += row.count;
                total += row.totalNs;
                percent += row.percent;
                minNs = first ? row.minNs : std::min(minNs, row.minNs);
                maxNs = first ? row.maxNs : std::max(maxNs, row.maxNs);
                first = false;
            }
            const QString title = QString::fromUtf8(analysis::kernelTypeLabel(analysis::KernelType(t)).data());
            groups[t] =
                tree.addNode(-1,
                             widen({title, quint64(count), qint64(total), qint64(count ? total / std::int64_t(count) : 0),
                                    qint64(minNs), qint64(maxNs), percent, QVariant(), QVariant(), QVariant(), QVariant()}),
                             QString(), title);
        }
    }
    // Kernels of a torch.compile region gather under it inside their type's group: the Triton
    // kernels of one compiled graph together.
    std::map<std::pair<int, QString>, int> regionGroups;
    const auto regionGroup = [&](int parent, const analysis::KernelRow &row, const QString &region) {
        auto [it, added] = regionGroups.try_emplace({parent, region}, -1);
        if (added) {
            const QString path =
                (parent >= 0 ? tree.nodes[std::size_t(parent)].path + QLatin1Char('/') : QString()) + region;
            it->second = tree.addNode(
                parent,
                widen({region, quint64(0), qint64(0), QVariant(), qint64(row.minNs), qint64(row.maxNs), 0.0, QVariant(),
                       QVariant(), QVariant(), row.region.empty() ? QVariant() : QVariant(region)}),
                QString(), path);
        }
        auto &values = tree.nodes[std::size_t(it->second)].values;
        const auto count = values[1].toULongLong() + row.count;
        const auto total = values[2].toLongLong() + row.totalNs;
        values[1] = quint64(count);
        values[2] = qint64(total);
        values[3] = qint64(count ? total / qint64(count) : 0);
        values[4] = std::min(values[4].toLongLong(), qint64(row.minNs));
        values[5] = std::max(values[5].toLongLong(), qint64(row.maxNs));
        values[6] = values[6].toDouble() + row.percent;
        return it->second;
    };
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        const auto &row = table.rows[r];
        const QString name = qs(row.name);
        int parent = groups[std::size_t(types[r])];
        if (!row.region.empty())
            parent = regionGroup(parent, row, qs(row.region));
        else if (2 * row.graphCount > row.count)
            parent = regionGroup(parent, row, QCoreApplication::translate("KernelTable", "CUDA graph replays"));
        QString graphs;
        for (std::size_t g = 0; g < row.graphIds.size() && g < kGraphIdsShown; ++g)
            graphs += (g ? QStringLiteral(", ") : QString()) + QString::number(row.graphIds[g]);
        if (row.graphIds.size() > kGraphIdsShown)
            graphs += QCoreApplication::translate("KernelTable", ", \u2026 (%1 graphs)").arg(row.graphIds.size());
        const QVariant source = row.hash.empty() ? QVariant()
                                                 : QVariant(qs(row.backend) + QLatin1Char(' ') + qs(row.hash) +
                                                            QStringLiteral(" (") + qs(row.file) + QLatin1Char(')'));
        auto values = widen({qs(analysis::shortKernelName(row.name)), quint64(row.count), qint64(row.totalNs),
                             qint64(row.avgNs()), qint64(row.minNs), qint64(row.maxNs), row.percent, qs(row.launchOp),
                             row.device >= 0 ? QVariant(qint64(row.device)) : QVariant(),
                             row.stream >= 0 ? QVariant(qint64(row.stream)) : QVariant(),
                             row.region.empty() ? QVariant() : QVariant(qs(row.region)),
                             graphs.isEmpty() ? QVariant() : QVariant(graphs), source});
        if (work.active()) {
            const auto *known = work.find(row.name, perStream ? streamKey(row.device, row.stream) : std::string());
            const auto cells = roofline::rooflineCells(known, true);
            std::copy(cells.begin(), cells.end(), values.begin() + std::ptrdiff_t(plainColumns));
        }
        tree.addNode(parent, std::move(values), name);
    }
    return tree;
}

} // namespace pyrometer::ui::tables
