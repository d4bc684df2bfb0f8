#pragma once
// The Help menu: what the page shown is for (F1), the keys and gestures of the window and its
// views, a tour of the pages, and About. The keys' rows are the README's "Keyboard and mouse"
// table (a test keeps the two the same, and every shortcut of the window in it).

#include "ui/shell/pages.h"

#include <QString>

#include <functional>
#include <vector>

class QMainWindow;
class QMenu;

namespace pyrometer::ui {

// One row of the keys' help: where it works, the keys or gesture, what it does.
struct KeyHelp {
    const char *where;
    const char *keys;
    const char *does;
};
const std::vector<KeyHelp> &keyHelp();

// The keys' help as an HTML table.
QString keyHelpHtml();

// What a page shows and what to do there, in a few sentences.
QString pageHelp(Page page);

// The tour: every page's title and help, each title a link "page:NAME" (pageName).
QString tourHtml();

// The README beside an installed or built Pyrometer (its whole tour, with screenshots); empty
// when there is none.
QString readmePath();

struct HelpMenuParts {
    std::function<Page()> currentPage;
    std::function<void(Page)> showPage;
    std::function<QString()> aboutText;
};

// Adds the Help menu to window's menu bar. Its boxes are non-modal (open()), children of window.
QMenu *addHelpMenu(QMainWindow *window, HelpMenuParts parts);

} // namespace pyrometer::ui
