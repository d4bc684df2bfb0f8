#pragma once

#include <QAbstractItemModel>

#include "ui/tables/tabletree.h"

namespace pyrometer::ui::tables {

// The item model behind every table of the Tables pages (operators, kernels, and later modules
// and memory). A table is flat or a tree; what differs between tables lives in the TableTree
// (columns and nodes), built by pure functions off the GUI thread, so this class stays one
// small set of final overrides.
class TableTreeModel final : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Role {
        SortRole = Qt::UserRole + 1, // the raw number (ns, bytes, count) or the text
        RawValueRole,                // same as SortRole; invalid for blank cells
        ExportRole,                  // text for CSV / clipboard: durations in µs, no unit
        FilterRole,                  // name and group path, what the filter box matches
        EventNameRole,               // the event name the timeline should highlight
        ColumnKindRole,              // headerData: the ColumnKind as int
    };
    Q_ENUM(Role)

    explicit TableTreeModel(QObject *parent = nullptr);

    void setTree(TableTree tree);
    const TableTree &tree() const { return m_tree; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const final;
    QModelIndex parent(const QModelIndex &child) const final;
    int rowCount(const QModelIndex &parent = {}) const final;
    int columnCount(const QModelIndex &parent = {}) const final;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const final;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;
    Qt::ItemFlags flags(const QModelIndex &index) const final;

    // The text a cell shows for a raw value of a column kind.
    static QString displayText(ColumnKind kind, const QVariant &value);

private:
    const TableNode *node(const QModelIndex &index) const;

    TableTree m_tree;
};

} // namespace pyrometer::ui::tables
