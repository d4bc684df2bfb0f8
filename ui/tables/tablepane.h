#pragma once

#include <QSet>
#include <QWidget>

class QSortFilterProxyModel;
class QTreeView;

namespace pyrometer::ui::tables {

class TableTreeModel;
struct TableTree;

// One table of a Tables page: the model behind a sort/filter proxy (recursive filtering, so a
// group row stays while one of its children matches), a tree view sorted on the raw numbers,
// a column chooser in the header's context menu, and Ctrl+C copying the selected rows.
class TablePane final : public QWidget {
    Q_OBJECT
public:
    explicit TablePane(QWidget *parent = nullptr);

    TableTreeModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QTreeView *view() const { return m_view; }

    // Replaces the table, keeping the columns the user hid and the sort they chose.
    void setTree(TableTree tree);
    void setFilterText(const QString &text);
    void setColumnVisible(const QString &title, bool visible);
    QList<int> visibleColumns() const;

    // The selected rows, tab-separated with a header line (what Ctrl+C puts on the clipboard).
    QString selectionAsTsv() const;
    void copySelection() const;
    // Every row that passes the filter, as CSV with a header line.
    QString allAsCsv() const;
    // Makes the first row (in view order, depth first) standing for events named `name`
    // current and selected, and scrolls to it. Returns false when no row matches.
    bool selectEventName(const QString &name);

Q_SIGNALS:
    // The current row changed to one that stands for events (empty name: a group row).
    void currentEventNameChanged(const QString &name);
    // A row that stands for events was double-clicked or activated with Enter.
    void eventNameActivated(const QString &name);

private:
    void showColumnMenu(const QPoint &pos);

    TableTreeModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTreeView *m_view;
    QSet<QString> m_hidden; // column titles
    bool m_userSorted = false;
};

} // namespace pyrometer::ui::tables
