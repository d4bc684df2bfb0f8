#pragma once

#include "ui/shell/pages.h"

#include <QString>

#include <functional>

namespace pyrometer::ui {

class MainWindow;

// Calls then() once every background job of the window has finished (queued, so that a
// finished job's results reach the pages first, and again while a job starts another).
void whenIdle(MainWindow *window, std::function<void()> then);

// Starts what the page runs on the open model: Run profile on the Model page, Run compare on
// the Compare page, with inputs (as "8x3x224x224") when not empty. Returns why it cannot
// (another page, no model open), or an empty string.
QString startPageRun(MainWindow *window, Page page, const QString &inputs);

// Waits until every background job of the window has finished, shows the page, grabs the
// window into a PNG at path, and calls done(exitCode, message): 0 when the PNG was written
// and nothing failed to open, 1 otherwise (the PNG is still written when it can be, so a
// failure can be seen).
void screenshotWhenIdle(MainWindow *window, Page page, const QString &path,
                        std::function<void(int exitCode, const QString &message)> done);

} // namespace pyrometer::ui
