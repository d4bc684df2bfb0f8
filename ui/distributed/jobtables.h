#pragma once

#include "core/analysis/job.h"
#include "ui/compare/rowtablemodel.h"

#include <QSortFilterProxyModel>
#include <QString>

#include <functional>
#include <vector>

namespace pyrometer::ui::distributed {

// One row of the ranks table: a rank's figures as the job gives them.
struct RankRow {
    const analysis::RankFigures *rank = nullptr; // into the job the model was given
    std::int64_t waitNs = 0;
    bool straggler = false;
};

using RanksModel = RowTableModel<RankRow>;
using CollectivesModel = RowTableModel<analysis::CollectiveRow>;

// Rank, file, steps, step time, compute, communication, exposed, memory, idle, overlap %, wait
// (times in the preferred unit, exported in µs).
RanksModel *makeRanksModel(QObject *parent = nullptr);
// The job's ranks as rows; the job must outlive the model's rows.
std::vector<RankRow> rankRows(const analysis::JobFigures &job);

// Collective, rank ("all" for the row over every rank), message size, group, calls, total time,
// algbw and busbw in GB/s.
CollectivesModel *makeCollectivesModel(QObject *parent = nullptr);
// The rows over all ranks (rank < 0), else those of that rank, as the job computed them.
std::vector<analysis::CollectiveRow> collectiveRows(const analysis::JobFigures &job, int rank);

// Sorts by RowTableModel's SortRole and paints the rows a predicate picks (the straggler) in
// a highlight colour.
class HighlightingProxy final : public QSortFilterProxyModel {
public:
    explicit HighlightingProxy(QObject *parent = nullptr);
    void setHighlighted(std::function<bool(int sourceRow)> highlighted);
    QVariant data(const QModelIndex &index, int role) const override;

private:
    std::function<bool(int)> m_highlighted;
};

} // namespace pyrometer::ui::distributed
