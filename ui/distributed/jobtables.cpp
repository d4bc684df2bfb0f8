#include "ui/distributed/jobtables.h"

#include "core/analysis/collectivematch.h"

#include "core/util/format.h"
#include "ui/shell/preferences.h"

#include <QColor>
#include <QCoreApplication>
#include <QFileInfo>
#include <QFont>

namespace pyrometer::ui::distributed {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("JobTables", text);
}

// A time column: shown in the preferred unit, sorted and exported in µs.
template <typename Row>
typename RowTableModel<Row>::Column timeColumn(const char *title, std::function<std::int64_t(const Row &)> ns, const char *tooltip)
{
    return {tr(title), [ns](const Row &row) { return displayDuration(ns(row)); },
            [ns](const Row &row) { return double(ns(row)) / 1e3; }, true, tr(tooltip)};
}

} // namespace

RanksModel *makeRanksModel(QObject *parent)
{
    using Column = RanksModel::Column;
    std::vector<Column> columns{
        {tr("Rank"), [](const RankRow &r) { return r.rank->rank; }, {}, true, {}},
        {tr("File"), [](const RankRow &r) { return QFileInfo(QString::fromStdString(r.rank->file)).fileName(); },
         [](const RankRow &r) { return QString::fromStdString(r.rank->file); }, false, {}},
        {tr("Steps"), [](const RankRow &r) { return r.rank->stepCount(); }, {}, true, {}},
        timeColumn<RankRow>("Step time", [](const RankRow &r) { return std::int64_t(r.rank->stepTimeUs * 1e3); },
                            "Mean duration of the rank's steps"),
        timeColumn<RankRow>("Compute", [](const RankRow &r) { return r.rank->computeNs; },
                            "Union of computation in the window"),
        timeColumn<RankRow>("Communication", [](const RankRow &r) { return r.rank->communicationNs; },
                            "Union of NCCL/RCCL kernels (gloo annotations on CPU) in the window"),
        timeColumn<RankRow>("Exposed", [](const RankRow &r) { return r.rank->exposedCommunicationNs; },
                            "Communication that no computation overlaps"),
        timeColumn<RankRow>("Memory", [](const RankRow &r) { return r.rank->memoryNs; }, "Union of memcpy and memset"),
        timeColumn<RankRow>("Idle", [](const RankRow &r) { return r.rank->idleNs; },
                            "The window less computation, communication and memory"),
        {tr("Overlap %"), [](const RankRow &r) { return QString::number(r.rank->overlapPct, 'f', 1); },
         [](const RankRow &r) { return r.rank->overlapPct; }, true, tr("Share of communication hidden behind computation")},
        timeColumn<RankRow>("Wait", [](const RankRow &r) { return r.waitNs; },
                            "Time in collectives waiting for the last rank to arrive"),
    };
    auto *model = new RanksModel(std::move(columns), parent);
    const QString us = QStringLiteral(" (us)");
    for (const int column : {3, 4, 5, 6, 7, 8, 10})
        model->setExportTitle(column, model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString() + us);
    return model;
}

std::vector<RankRow> rankRows(const analysis::JobFigures &job)
{
    std::vector<RankRow> rows;
    for (std::size_t i = 0; i < job.ranks.size(); ++i) {
        RankRow row;
        row.rank = &job.ranks[i];
        row.waitNs = i < job.waitNs.size() ? job.waitNs[i] : 0;
        for (const auto &straggler : job.stragglers)
            row.straggler = row.straggler || straggler.rank == job.ranks[i].rank;
        rows.push_back(row);
    }
    return rows;
}

CollectivesModel *makeCollectivesModel(QObject *parent)
{
    using analysis::CollectiveRow;
    using Column = CollectivesModel::Column;
    const auto bandwidth = [](double gbps) { return gbps > 0 ? QString::number(gbps, 'f', 2) : QStringLiteral("–"); };
    std::vector<Column> columns{
        {tr("Collective"), [](const CollectiveRow &r) { return QString::fromStdString(r.name); }, {}, false, {}},
        {tr("Process group"),
         [](const CollectiveRow &r) { return QString::fromStdString(analysis::processGroupLabel(r.group, r.groupDesc)); },
         {}, false, tr("The process group the calls ran in (its description and name), as the trace says")},
        {tr("Members"), [](const CollectiveRow &r) { return QString::fromStdString(r.groupRanks); }, {}, false,
         tr("The group's ranks")},
        {tr("Rank"), [](const CollectiveRow &r) { return r.rank < 0 ? tr("all") : QString::number(r.rank); },
         [](const CollectiveRow &r) { return r.rank; }, true, {}},
        {tr("Message size"),
         [](const CollectiveRow &r) { return r.bytes < 0 ? tr("unknown") : QString::fromStdString(formatBytes(std::uint64_t(r.bytes))); },
         [](const CollectiveRow &r) { return qlonglong(r.bytes); }, true, tr("Bytes per call (the larger of input and output)")},
        {tr("Group size"), [](const CollectiveRow &r) { return r.groupSize; }, {}, true,
         tr("Ranks taking part: the group's, else the job's world size")},
        {tr("Calls"), [](const CollectiveRow &r) { return qulonglong(r.calls); }, {}, true, {}},
        timeColumn<CollectiveRow>("Total time", [](const CollectiveRow &r) { return r.timeNs; }, "Summed over the calls"),
        {tr("algbw GB/s"), [bandwidth](const CollectiveRow &r) { return bandwidth(r.algbwGBps); },
         [](const CollectiveRow &r) { return r.algbwGBps; }, true, tr("Bytes × calls / time")},
        {tr("busbw GB/s"), [bandwidth](const CollectiveRow &r) { return bandwidth(r.busbwGBps); },
         [](const CollectiveRow &r) { return r.busbwGBps; }, true, tr("algbw × nccl-tests' bus factor for the collective and group")},
    };
    auto *model = new CollectivesModel(std::move(columns), parent);
    model->setExportTitle(7, tr("Total time (us)"));
    return model;
}

std::vector<analysis::CollectiveRow> collectiveRows(const analysis::JobFigures &job, int rank)
{
    if (rank < 0)
        return job.collectives;
    std::vector<analysis::CollectiveRow> rows;
    for (const auto &row : job.collectivesByRank) {
        if (row.rank == rank)
            rows.push_back(row);
    }
    return rows;
}

HighlightingProxy::HighlightingProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(RanksModel::SortRole);
}

void HighlightingProxy::setHighlighted(std::function<bool(int)> highlighted)
{
    m_highlighted = std::move(highlighted);
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::BackgroundRole, Qt::FontRole});
}

QVariant HighlightingProxy::data(const QModelIndex &index, int role) const
{
    if ((role == Qt::BackgroundRole || role == Qt::FontRole) && index.isValid() && m_highlighted &&
        m_highlighted(mapToSource(index).row())) {
        if (role == Qt::BackgroundRole)
            return QColor(0xc6, 0x28, 0x28, 60);
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    return QSortFilterProxyModel::data(index, role);
}

} // namespace pyrometer::ui::distributed
