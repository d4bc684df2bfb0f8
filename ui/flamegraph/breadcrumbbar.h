#pragma once

#include <QStringList>
#include <QWidget>

class QHBoxLayout;
class QToolButton;

namespace pyrometer::ui::flamegraph {

// "all › forward › aten::linear": one button per level, the last (where you are) disabled;
// clicking one goes back to that level. Long names are elided.
class BreadcrumbBar final : public QWidget {
    Q_OBJECT
public:
    explicit BreadcrumbBar(QWidget *parent = nullptr);

    void setCrumbs(const QStringList &labels);
    QStringList crumbs() const { return m_labels; }
    QToolButton *button(int level) const;

Q_SIGNALS:
    void crumbClicked(int level);

private:
    QHBoxLayout *m_layout;
    QStringList m_labels;
    QList<QToolButton *> m_buttons;
};

} // namespace pyrometer::ui::flamegraph
