#include "ui/overview/advicedelegate.h"

#include <QApplication>
#include <QListView>
#include <QPainter>
#include <QTextDocument>

namespace pyrometer::ui::overview {

namespace {

constexpr int kMargin = 6;

void layOut(QTextDocument &document, const QStyleOptionViewItem &option, const QModelIndex &index, int width)
{
    document.setDefaultFont(option.font);
    document.setDocumentMargin(0);
    document.setHtml(index.data(Qt::DisplayRole).toString());
    document.setTextWidth(std::max(100, width - 2 * kMargin));
}

} // namespace

void AdviceDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    QTextDocument document;
    layOut(document, option, index, option.rect.width());
    painter->save();
    painter->translate(option.rect.topLeft() + QPoint(kMargin, kMargin));
    document.drawContents(painter);
    painter->restore();
}

QSize AdviceDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const auto *list = qobject_cast<const QListView *>(option.widget);
    const int width = list ? list->viewport()->width() - 2 * list->spacing() : option.rect.width();
    QTextDocument document;
    layOut(document, option, index, width);
    return {width, int(std::ceil(document.size().height())) + 2 * kMargin};
}

} // namespace pyrometer::ui::overview
