#pragma once

#include <QDir>
#include <QString>
#include <QWidget>

// With PYROMETER_SCREENSHOT_DIR set, a test saves what it drew there as PNG, to look at.
inline void maybeGrab(QWidget &widget, const QString &name)
{
    const QString dir = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    widget.grab().save(dir + QLatin1Char('/') + name);
}
