#include "ui/tables/sortheader.h"

#include <QStyleOptionHeader>
#include <QTableView>
#include <QTreeView>

namespace pyrometer::ui::tables {

SortHeader::SortHeader(QWidget *parent) : QHeaderView(Qt::Horizontal, parent)
{}

void SortHeader::initStyleOptionForIndex(QStyleOptionHeader *option, int logicalIndex) const
{
    QHeaderView::initStyleOptionForIndex(option, logicalIndex);
    if (option->sortIndicator == QStyleOptionHeader::SortUp)
        option->sortIndicator = QStyleOptionHeader::SortDown;
    else if (option->sortIndicator == QStyleOptionHeader::SortDown)
        option->sortIndicator = QStyleOptionHeader::SortUp;
}

void useSortHeader(QTreeView *view)
{
    auto *header = new SortHeader(view);
    header->setSectionsMovable(true);
    header->setStretchLastSection(true);
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    view->setHeader(header);
}

void useSortHeader(QTableView *view)
{
    auto *header = new SortHeader(view);
    header->setSectionsClickable(true);
    header->setHighlightSections(true);
    view->setHorizontalHeader(header);
}

} // namespace pyrometer::ui::tables
