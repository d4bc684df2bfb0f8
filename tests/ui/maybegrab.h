#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QString>
#include <QWidget>

// With PYROMETER_SCREENSHOT_DIR set, a test saves what it drew there as PNG, to look at: laid out
// as the user would see it (a size that changed since the last event loop pass is applied first).
inline void maybeGrab(QWidget &widget, const QString &name)
{
    const QString dir = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    widget.grab().save(dir + QLatin1Char('/') + name);
}
