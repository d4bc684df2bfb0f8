#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QString>
#include <QVariant>

#include <vector>

namespace pyrometer::ui::tables {

// How a column's raw value is shown, sorted and exported.
// Number: an amount (GFLOP, GB/s); Id: a number that names something (a device, a stream).
enum class ColumnKind { Text, Count, Duration, Percent, Bytes, Number, Id };

struct TableColumn {
    QString title;       // header
    ColumnKind kind = ColumnKind::Text;
    QString exportTitle; // CSV / clipboard header: says the unit ("total_us")
    QString tooltip = {}; // what the column sums, where its title cannot say (the header's tooltip)
};

// One row of a table or tree. values[i] is the raw value of column i (QString, qint64 ns or
// bytes, quint64 counts, double percent); an invalid QVariant is a blank cell.
struct TableNode {
    std::vector<QVariant> values;
    QString eventName; // what the timeline highlights for this row; empty for group rows
    QString path;      // group rows and their leaves: the full path, for filtering and export
    int parent = -1;   // node id, -1 at the top level
    int row = 0;       // position among its parent's children
    std::vector<int> children;
};

// A table as plain data, built off the GUI thread and handed to a TableTreeModel whole.
// Nodes are stored parent-first: a child's id is always greater than its parent's.
struct TableTree {
    std::vector<TableColumn> columns;
    std::vector<TableNode> nodes;
    std::vector<int> roots;
    int defaultSortColumn = 0;

    int columnIndex(const QString &title) const;
    bool isTree() const;
    // Appends a node under parent (-1: top level) and returns its id.
    int addNode(int parent, std::vector<QVariant> values, QString eventName = {}, QString path = {});
};

} // namespace pyrometer::ui::tables
