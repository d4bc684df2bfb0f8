#pragma once

#include "ui/tables/tabletreemodel.h"

#include <QAbstractTableModel>

#include <functional>
#include <map>
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

    // A column's text colour per row (a QColor, or null for the palette's).
    void setForeground(int column, std::function<QVariant(const Row &)> colour) { m_foreground[column] = std::move(colour); }
    // A column's cell tooltips, where they say more than the cell (by default, its text).
    void setCellTooltip(int column, std::function<QVariant(const Row &)> tooltip)
    {
        m_tooltips[column] = std::move(tooltip);
    }
    // A column's CSV header, where it differs from the title (to name the exported unit).
    void setExportTitle(int column, const QString &title) { m_exportTitles[column] = title; }

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
        case Qt::DisplayRole: return column.display(row);
        case Qt::ToolTipRole: {
            const auto tooltip = m_tooltips.find(index.column());
            return tooltip != m_tooltips.end() ? tooltip->second(row) : column.display(row);
        }
        case SortRole:
        case ExportRole: return column.value ? column.value(row) : column.display(row);
        case Qt::TextAlignmentRole:
            return int((column.numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
        case Qt::ForegroundRole: {
            const auto colour = m_foreground.find(index.column());
            return colour != m_foreground.end() ? colour->second(row) : QVariant();
        }
        default: return {};
        }
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation != Qt::Horizontal || section < 0 || section >= int(m_columns.size()))
            return {};
        const auto &column = m_columns[std::size_t(section)];
        switch (role) {
        case Qt::DisplayRole: return column.title;
        case ExportRole: {
            const auto title = m_exportTitles.find(section);
            return title != m_exportTitles.end() ? title->second : column.title;
        }
        case Qt::InitialSortOrderRole: return int(column.numeric ? Qt::DescendingOrder : Qt::AscendingOrder);
        case Qt::ToolTipRole: return column.tooltip.isEmpty() ? QVariant() : QVariant(column.tooltip);
        default: return {};
        }
    }

private:
    std::vector<Column> m_columns;
    std::vector<Row> m_rows;
    std::map<int, std::function<QVariant(const Row &)>> m_foreground;
    std::map<int, std::function<QVariant(const Row &)>> m_tooltips;
    std::map<int, QString> m_exportTitles;
};

} // namespace pyrometer::ui
