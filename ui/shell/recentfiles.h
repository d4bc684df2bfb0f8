#pragma once

#include <QStringList>

class QSettings;

namespace pyrometer::ui {

// The most recently opened files and folders, newest first, without duplicates, kept in
// QSettings under "recentFiles".
class RecentFiles {
public:
    static constexpr int kMaximum = 10;

    static QStringList load(const QSettings &settings);
    static QStringList add(QSettings &settings, const QString &path);
    static void clear(QSettings &settings);
};

} // namespace pyrometer::ui
