#pragma once
// A table's header whose sort arrow points the way its rows run: ▼ when the largest (or last)
// come first, ▲ when the smallest do. Qt's header marks a descending sort SortUp, which Fusion
// draws as ▲, the opposite of what a reader of "largest first" expects.

#include <QHeaderView>

class QTableView;
class QTreeView;

namespace pyrometer::ui::tables {

class SortHeader final : public QHeaderView {
    Q_OBJECT
public:
    explicit SortHeader(QWidget *parent = nullptr);

protected:
    void initStyleOptionForIndex(QStyleOptionHeader *option, int logicalIndex) const override;
};

// Gives view a SortHeader, with the settings of the view's own header (a tree's: movable
// sections, labels aligned left; a table's: clickable, highlighted sections); call before
// setting its model.
void useSortHeader(QTreeView *view);
void useSortHeader(QTableView *view);

} // namespace pyrometer::ui::tables
