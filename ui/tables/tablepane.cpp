#include "ui/tables/tablepane.h"

#include "ui/tables/frozencolumn.h"
#include "ui/tables/sortheader.h"
#include "ui/tables/tableexport.h"
#include "ui/tables/tabletreemodel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace pyrometer::ui::tables {

TablePane::TablePane(QWidget *parent)
    : QWidget(parent), m_model(new TableTreeModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTreeView(this))
{
    useSortHeader(m_view);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(TableTreeModel::SortRole);
    m_proxy->setFilterRole(TableTreeModel::FilterRole);
    m_proxy->setFilterKeyColumn(0);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setSortCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setRecursiveFilteringEnabled(true);

    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setRootIsDecorated(false);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->header()->setSectionsMovable(true);
    connect(m_view->header(), &QWidget::customContextMenuRequested, this, &TablePane::showColumnMenu);
    connect(m_view->header(), &QHeaderView::sortIndicatorChanged, this, [this] { m_userSorted = true; });
    freezeFirstColumn(m_view);

    auto *copy = new QAction(tr("Copy"), m_view);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &TablePane::copySelection);
    m_view->addAction(copy);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    Q_EMIT currentEventNameChanged(current.data(TableTreeModel::EventNameRole).toString());
            });

    connect(m_view, &QTreeView::activated, this, [this](const QModelIndex &index) {
        const QString name = index.data(TableTreeModel::EventNameRole).toString();
        if (!name.isEmpty())
            Q_EMIT eventNameActivated(name);
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
}

void TablePane::setTree(TableTree tree)
{
    const int defaultSort = tree.defaultSortColumn;
    const bool isTree = tree.isTree();
    // The sort indicator survives the reset by title, so re-sorting an updated table keeps
    // what the user chose.
    const auto *header = m_view->header();
    const QString sortTitle = m_userSorted && header->sortIndicatorSection() >= 0
                                  ? m_model->headerData(header->sortIndicatorSection(), Qt::Horizontal).toString()
                                  : QString();
    const Qt::SortOrder order = m_userSorted ? header->sortIndicatorOrder() : Qt::DescendingOrder;
    const bool userSorted = m_userSorted;

    m_model->setTree(std::move(tree));
    m_view->setRootIsDecorated(isTree);
    for (int column = 0; column < m_model->columnCount(); ++column)
        m_view->setColumnHidden(column, m_hidden.contains(m_model->headerData(column, Qt::Horizontal).toString()));
    int sortColumn = sortTitle.isEmpty() ? -1 : m_model->tree().columnIndex(sortTitle);
    if (sortColumn < 0)
        sortColumn = defaultSort;
    m_view->sortByColumn(sortColumn, order);
    m_userSorted = userSorted;
    if (isTree)
        m_view->expandToDepth(0);
    m_view->header()->resizeSections(QHeaderView::ResizeToContents);
    if (m_view->columnWidth(0) > 420)
        m_view->setColumnWidth(0, 420);
}

void TablePane::setFilterText(const QString &text)
{
    m_proxy->setFilterFixedString(text);
    if (!text.isEmpty() && m_model->tree().isTree())
        m_view->expandAll();
}

void TablePane::setColumnVisible(const QString &title, bool visible)
{
    if (visible)
        m_hidden.remove(title);
    else
        m_hidden.insert(title);
    const int column = m_model->tree().columnIndex(title);
    if (column >= 0)
        m_view->setColumnHidden(column, !visible);
}

QList<int> TablePane::visibleColumns() const
{
    QList<int> columns;
    const auto *header = m_view->header();
    for (int visual = 0; visual < header->count(); ++visual) {
        const int logical = header->logicalIndex(visual);
        if (!header->isSectionHidden(logical))
            columns.push_back(logical);
    }
    return columns;
}

QString TablePane::selectionAsTsv() const
{
    const auto rows = selectedRowsInOrder(m_view->selectionModel());
    if (rows.isEmpty())
        return {};
    return rowsAsTsv(m_proxy, rows, visibleColumns());
}

void TablePane::copySelection() const
{
    const QString text = selectionAsTsv();
    if (!text.isEmpty())
        QApplication::clipboard()->setText(text);
}

QString TablePane::allAsCsv() const
{
    return rowsAsCsv(m_proxy, allRows(m_proxy), visibleColumns());
}

bool TablePane::selectEventName(const QString &name)
{
    const auto rows = allRows(m_proxy);
    for (const auto &row : rows) {
        if (row.data(TableTreeModel::EventNameRole).toString() != name)
            continue;
        for (auto parent = row.parent(); parent.isValid(); parent = parent.parent())
            m_view->expand(parent);
        m_view->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_view->scrollTo(row);
        return true;
    }
    return false;
}

void TablePane::showColumnMenu(const QPoint &pos)
{
    QMenu menu(this);
    for (int column = 0; column < m_model->columnCount(); ++column) {
        const QString title = m_model->headerData(column, Qt::Horizontal).toString();
        auto *action = menu.addAction(title);
        action->setCheckable(true);
        action->setChecked(!m_view->isColumnHidden(column));
        action->setEnabled(column != 0); // the name column stays
        connect(action, &QAction::toggled, this, [this, title](bool on) { setColumnVisible(title, on); });
    }
    menu.exec(m_view->header()->mapToGlobal(pos));
}

} // namespace pyrometer::ui::tables
