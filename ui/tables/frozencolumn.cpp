#include "ui/tables/frozencolumn.h"

#include "ui/tables/sortheader.h"

#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTimer>

#include <algorithm>

namespace pyrometer::ui::tables {

FrozenColumn::FrozenColumn(QTreeView *view) : QTreeView(view), m_view(view), m_edge(new QWidget(view))
{
    useSortHeader(this);
    setModel(view->model());
    setSelectionModel(view->selectionModel());
    setFocusPolicy(Qt::NoFocus);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSelectionMode(view->selectionMode());
    setSelectionBehavior(view->selectionBehavior());
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    header()->setSectionsMovable(false);
    header()->setSectionsClickable(true);
    header()->setStretchLastSection(true);
    header()->setSortIndicatorShown(view->header()->isSortIndicatorShown());
    m_edge->setBackgroundRole(QPalette::Mid);
    m_edge->setAutoFillBackground(true);
    hide();
    m_edge->hide();

    auto *views = view->verticalScrollBar();
    connect(views, &QScrollBar::valueChanged, verticalScrollBar(), &QScrollBar::setValue);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, views, &QScrollBar::setValue);
    connect(view->horizontalScrollBar(), &QScrollBar::valueChanged, this, &FrozenColumn::follow);
    connect(view->horizontalScrollBar(), &QScrollBar::rangeChanged, this, &FrozenColumn::follow);
    connect(view->header(), &QHeaderView::sectionResized, this, &FrozenColumn::follow);
    connect(view->header(), &QHeaderView::geometriesChanged, this, &FrozenColumn::follow);
    connect(view->header(), &QHeaderView::sortIndicatorChanged, this, &FrozenColumn::follow);
    connect(header(), &QHeaderView::sectionResized, this, [this](int logical, int, int size) {
        if (logical == 0 && !m_following && size != m_view->columnWidth(0))
            m_view->setColumnWidth(0, size); // the user dragged the overlay's edge
    });
    connect(header(), &QHeaderView::sectionClicked, this, &FrozenColumn::sortFromHeader);

    connect(view, &QTreeView::expanded, this, [this](const QModelIndex &index) { expand(index); });
    connect(view, &QTreeView::collapsed, this, [this](const QModelIndex &index) { collapse(index); });
    connect(this, &QTreeView::expanded, view, [this](const QModelIndex &index) {
        if (!m_copying)
            m_view->expand(index);
    });
    connect(this, &QTreeView::collapsed, view, [this](const QModelIndex &index) {
        if (!m_copying)
            m_view->collapse(index);
    });
    // A reset, a new sort or a filter collapses the overlay's rows; the view expands its own
    // after (expandToDepth and expandAll say nothing), so the copy waits for the event loop.
    const auto stale = [this] {
        m_expansionStale = true;
        QTimer::singleShot(0, this, &FrozenColumn::follow);
    };
    auto *model = view->model();
    connect(model, &QAbstractItemModel::modelReset, this, stale);
    connect(model, &QAbstractItemModel::layoutChanged, this, stale);
    connect(model, &QAbstractItemModel::rowsInserted, this, stale);
    connect(model, &QAbstractItemModel::rowsRemoved, this, stale);
    connect(model, &QAbstractItemModel::columnsInserted, this, stale);

    // What a click does in the view, it does here.
    connect(this, &QAbstractItemView::pressed, view, [view] { view->setFocus(Qt::MouseFocusReason); });
    connect(this, &QAbstractItemView::activated, view, &QAbstractItemView::activated);
    connect(this, &QAbstractItemView::clicked, view, &QAbstractItemView::clicked);
    connect(this, &QAbstractItemView::doubleClicked, view, &QAbstractItemView::doubleClicked);
    setContextMenuPolicy(view->contextMenuPolicy());
    connect(this, &QWidget::customContextMenuRequested, view, [this](const QPoint &pos) {
        Q_EMIT m_view->customContextMenuRequested(m_view->viewport()->mapFromGlobal(viewport()->mapToGlobal(pos)));
    });
    view->installEventFilter(this);
    follow();
}

bool FrozenColumn::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view && (event->type() == QEvent::Resize || event->type() == QEvent::Show ||
                              event->type() == QEvent::StyleChange || event->type() == QEvent::FontChange))
        QTimer::singleShot(0, this, &FrozenColumn::follow);
    return QTreeView::eventFilter(watched, event);
}

void FrozenColumn::follow()
{
    const bool wanted = m_view->horizontalScrollBar()->value() > 0 && !m_view->isColumnHidden(0) &&
                        m_view->header()->visualIndex(0) == 0;
    if (!wanted) {
        hide();
        m_edge->hide();
        return;
    }
    // The view's look, which its owner may change after the overlay was made.
    setRootIsDecorated(m_view->rootIsDecorated());
    setIndentation(m_view->indentation());
    setUniformRowHeights(m_view->uniformRowHeights());
    setAlternatingRowColors(m_view->alternatingRowColors());
    setTextElideMode(m_view->textElideMode());
    setIconSize(m_view->iconSize());
    setVerticalScrollMode(m_view->verticalScrollMode());
    auto *delegate = m_view->itemDelegateForColumn(0) ? m_view->itemDelegateForColumn(0) : m_view->itemDelegate();
    if (itemDelegate() != delegate)
        setItemDelegate(delegate);
    for (int column = 1; column < model()->columnCount(); ++column)
        setColumnHidden(column, true);
    const auto *viewHeader = m_view->header();
    header()->setFixedHeight(viewHeader->isHidden() ? 0 : viewHeader->height());
    header()->setDefaultAlignment(viewHeader->defaultAlignment());
    header()->setSortIndicatorShown(viewHeader->isSortIndicatorShown());
    header()->setSortIndicator(viewHeader->sortIndicatorSection() == 0 ? 0 : -1, viewHeader->sortIndicatorOrder());

    // At most half the viewport, so that the figures scrolled to stay readable beside it.
    const QRect port = m_view->viewport()->geometry();
    const int top = viewHeader->isHidden() ? port.top() : viewHeader->geometry().top();
    const int width = std::min(m_view->columnWidth(0), port.width() / 2);
    m_following = true;
    if (columnWidth(0) != width)
        setColumnWidth(0, width);
    m_following = false;
    setGeometry(port.left(), top, width, port.bottom() + 1 - top);
    m_edge->setGeometry(port.left() + width, top, 1, port.bottom() + 1 - top);
    if (m_expansionStale)
        copyExpanded();
    verticalScrollBar()->setValue(m_view->verticalScrollBar()->value());
    show();
    raise();
    m_edge->show();
    m_edge->raise();
}

void FrozenColumn::copyExpanded()
{
    m_expansionStale = false;
    if (!m_view->rootIsDecorated() && !m_view->itemsExpandable())
        return;
    m_copying = true; // collapseAll says collapsed for every row it closes
    collapseAll();
    copyExpandedUnder({});
    m_copying = false;
}

void FrozenColumn::copyExpandedUnder(const QModelIndex &parent)
{
    const auto *model = m_view->model();
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, 0, parent);
        if (m_view->isExpanded(index)) {
            expand(index);
            copyExpandedUnder(index);
        }
    }
}

void FrozenColumn::sortFromHeader(int section)
{
    if (section != 0 || !m_view->isSortingEnabled())
        return;
    const auto *viewHeader = m_view->header();
    Qt::SortOrder order;
    if (viewHeader->sortIndicatorSection() == 0)
        order = viewHeader->sortIndicatorOrder() == Qt::AscendingOrder ? Qt::DescendingOrder : Qt::AscendingOrder;
    else {
        const QVariant initial = model()->headerData(0, Qt::Horizontal, Qt::InitialSortOrderRole);
        order = initial.isValid() ? Qt::SortOrder(initial.toInt()) : Qt::AscendingOrder;
    }
    m_view->sortByColumn(0, order);
}

FrozenColumn *freezeFirstColumn(QTreeView *view)
{
    return new FrozenColumn(view);
}

} // namespace pyrometer::ui::tables
