#pragma once

#include <QList>
#include <QModelIndexList>
#include <QString>

class QAbstractItemModel;
class QItemSelectionModel;

namespace pyrometer::ui::tables {

// Every row of a model (column 0 indices), depth first, in the model's order: a proxy's
// sorted, filtered order when given a proxy.
QModelIndexList allRows(const QAbstractItemModel *model);

// The selected rows of a view's model, in the order they are shown.
QModelIndexList selectedRowsInOrder(const QItemSelectionModel *selection);

// Rows as text with a header line: cells are the model's TableTreeModel::ExportRole (raw
// numbers, durations in µs), headers its headerData(ExportRole). Tab-separated text replaces
// tabs and line breaks inside cells by spaces; CSV quotes as RFC 4180.
QString rowsAsTsv(const QAbstractItemModel *model, const QModelIndexList &rows, const QList<int> &columns);
QString rowsAsCsv(const QAbstractItemModel *model, const QModelIndexList &rows, const QList<int> &columns);

// One CSV field, quoted when it holds a comma, quote or line break.
QString csvField(const QString &text);

} // namespace pyrometer::ui::tables
