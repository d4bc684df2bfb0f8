#include "ui/tables/tableexport.h"

#include "ui/tables/tabletreemodel.h"

#include <QAbstractItemModel>
#include <QItemSelectionModel>
#include <QSet>

#include <functional>

namespace pyrometer::ui::tables {

namespace {

void collectRows(const QAbstractItemModel *model, const QModelIndex &parent, QModelIndexList *rows,
                 const QSet<QPersistentModelIndex> *only)
{
    const int count = model->rowCount(parent);
    for (int row = 0; row < count; ++row) {
        const QModelIndex index = model->index(row, 0, parent);
        if (!only || only->contains(index))
            rows->push_back(index);
        collectRows(model, index, rows, only);
    }
}

QString rowsAsText(const QAbstractItemModel *model, const QModelIndexList &rows, const QList<int> &columns,
                   const std::function<QString(const QString &)> &field, QChar separator)
{
    QString text;
    QStringList cells;
    for (const int column : columns)
        cells.push_back(field(model->headerData(column, Qt::Horizontal, TableTreeModel::ExportRole).toString()));
    text += cells.join(separator) + QLatin1Char('\n');
    for (const auto &row : rows) {
        cells.clear();
        for (const int column : columns)
            cells.push_back(
                field(model->index(row.row(), column, row.parent()).data(TableTreeModel::ExportRole).toString()));
        text += cells.join(separator) + QLatin1Char('\n');
    }
    return text;
}

} // namespace

QModelIndexList allRows(const QAbstractItemModel *model)
{
    QModelIndexList rows;
    collectRows(model, {}, &rows, nullptr);
    return rows;
}

QModelIndexList selectedRowsInOrder(const QItemSelectionModel *selection)
{
    QSet<QPersistentModelIndex> selected;
    for (const auto &index : selection->selectedIndexes())
        selected.insert(index.siblingAtColumn(0));
    QModelIndexList rows;
    collectRows(selection->model(), {}, &rows, &selected);
    return rows;
}

QString csvField(const QString &text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')) &&
        !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString rowsAsTsv(const QAbstractItemModel *model, const QModelIndexList &rows, const QList<int> &columns)
{
    const auto clean = [](const QString &cell) {
        QString text = cell;
        for (const QChar c : {QLatin1Char('\t'), QLatin1Char('\n'), QLatin1Char('\r')})
            text.replace(c, QLatin1Char(' '));
        return text;
    };
    return rowsAsText(model, rows, columns, clean, QLatin1Char('\t'));
}

QString rowsAsCsv(const QAbstractItemModel *model, const QModelIndexList &rows, const QList<int> &columns)
{
    return rowsAsText(model, rows, columns, csvField, QLatin1Char(','));
}

} // namespace pyrometer::ui::tables
