#pragma once

#include <QStyledItemDelegate>

namespace pyrometer::ui::overview {

// Draws an advice item's text as rich text (a bold title, the detail, the fix in a second
// paragraph) and sizes the row to the wrapped text at the view's width.
class AdviceDelegate final : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace pyrometer::ui::overview
