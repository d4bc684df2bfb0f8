#pragma once

#include "ui/tables/tabletreemodel.h"

#include <QAbstractTableModel>

#include <functional>
#include <vector>

namespace pyrometer::ui {

// A flat table of plain rows, its columns given as functions of a row: the sweep points, the
// variants and the delta tables. Roles as TableTreeModel's, so that a QSortFilterProxyModel
// sorts numbers by value (sortRole SortRole) and tables::rowsAsCsv exports raw numbers.
template <typename Row>
class RowTableModel final : public QAbstractTableModel {
public:
    static constexpr int SortRole = tables::TableTreeModel::SortRole;
    static constexpr int ExportRole = tables::TableTreeModel::ExportRole;

    struct Column {
        QString title;
        std::function<QVariant(const Row &)> display;
        std::function<QVariant(const Row &)> value; // sort and export value; null: display
        bool numeric = true;                         // right-aligned
        QString tooltip;
    };

    explicit RowTableModel(std::vector<Column> columns, QObject *parent = nullptr)
        : QAbstractTableModel(parent), m_columns(std::move(columns))
    {
    }

    const std::vector<Row> &rows() const { return m_rows; }

    void setRows(std::vector<Row> rows)
    {
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
    }

    void appendRow(Row row)
    {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
        m_rows.push_back(std::move(row));
        endInsertRows();
    }

    void clear() { setRows({}); }

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_columns.size()); }

    QVariant data(const QModelIndex &index, int role) const override
    {
        if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
            return {};
        const auto &column = m_columns[std::size_t(index.column())];
        const auto &row = m_rows[std::size_t(index.row())];
        switch (role) {
        case Qt::DisplayRole:
        case Qt::ToolTipRole: return column.display(row);
        case SortRole:
        case ExportRole: return column.value ? column.value(row) : column.display(row);
        case Qt::TextAlignmentRole:
            return int((column.numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
        default: return {};
        }
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation != Qt::Horizontal || section < 0 || section >= int(m_columns.size()))
            return {};
        const auto &column = m_columns[std::size_t(section)];
        switch (role) {
        case Qt::DisplayRole:
        case ExportRole: return column.title;
        case Qt::InitialSortOrderRole: return int(column.numeric ? Qt::DescendingOrder : Qt::AscendingOrder);
        case Qt::ToolTipRole: return column.tooltip.isEmpty() ? QVariant() : QVariant(column.tooltip);
        default: return {};
        }
    }

private:
    std::vector<Column> m_columns;
    std::vector<Row> m_rows;
};

} // namespace pyrometer::ui
