#pragma once
// Ctrl+Tab and Ctrl+Shift+Tab switch a page's sub-tabs from anywhere on the page (Qt's tab
// widget does so only while the focus is inside it).

class QTabWidget;
class QWidget;

namespace pyrometer::ui {

void switchTabsWithCtrlTab(QTabWidget *tabs, QWidget *page);

} // namespace pyrometer::ui
