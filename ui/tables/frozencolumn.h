#pragma once
// Keeps a tree view's first column (its names) on screen while the view is scrolled right.
// Once the view scrolls, a second view over the same model and selection draws that column,
// header included, over the left edge of the first, following its rows, scrolling, expansion,
// sort and column width; clicks, double-clicks, Enter and the context menu act on the rows as
// they would in the view itself. Scrolled back to the left, the overlay hides and the view is
// drawn alone.

#include <QTreeView>

namespace pyrometer::ui::tables {

class FrozenColumn final : public QTreeView {
    Q_OBJECT
public:
    // view's model must be set; the overlay is view's child and lives as long as it does.
    explicit FrozenColumn(QTreeView *view);

    // The view whose first column this keeps.
    QTreeView *source() const { return m_view; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void follow();       // geometry, visibility, sort indicator, width
    void copyExpanded(); // the view's expanded rows, after a reset or filter
    void copyExpandedUnder(const QModelIndex &parent);
    void sortFromHeader(int section);

    QTreeView *m_view;
    QWidget *m_edge; // a line along the overlay's right edge
    bool m_expansionStale = true;
    bool m_following = false; // follow() is resizing the overlay's column
    bool m_copying = false;   // copyExpanded() is opening and closing the overlay's rows
};

// Gives view a FrozenColumn (call after setting its model); returns it.
FrozenColumn *freezeFirstColumn(QTreeView *view);

} // namespace pyrometer::ui::tables
