#pragma once

#include "ui/shell/pages.h"

#include <QString>

#include <functional>

namespace pyrometer::ui {

class MainWindow;

// Waits until every background job of the window has finished, shows the page, grabs the
// window into a PNG at path, and calls done(exitCode, message): 0 when the PNG was written
// and nothing failed to open, 1 otherwise (the PNG is still written when it can be, so a
// failure can be seen).
void screenshotWhenIdle(MainWindow *window, Page page, const QString &path,
                        std::function<void(int exitCode, const QString &message)> done);

} // namespace pyrometer::ui
