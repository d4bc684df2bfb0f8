#include "ui/shell/tabkeys.h"

#include <QShortcut>
#include <QTabWidget>

namespace pyrometer::ui {

void switchTabsWithCtrlTab(QTabWidget *tabs, QWidget *page)
{
    const auto step = [tabs](int by) {
        if (tabs->count() > 0)
            tabs->setCurrentIndex((tabs->currentIndex() + by + tabs->count()) % tabs->count());
    };
    auto *next = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Tab), page);
    next->setContext(Qt::WidgetWithChildrenShortcut);
    QObject::connect(next, &QShortcut::activated, tabs, [step] { step(1); });
    // Shift+Tab arrives as Backtab.
    for (const auto &keys :
         {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab)}) {
        auto *previous = new QShortcut(keys, page);
        previous->setContext(Qt::WidgetWithChildrenShortcut);
        QObject::connect(previous, &QShortcut::activated, tabs, [step] { step(-1); });
    }
}

} // namespace pyrometer::ui
