#include "ui/shell/recentfiles.h"

#include <QFileInfo>
#include <QSettings>

namespace pyrometer::ui {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

QStringList RecentFiles::load(const QSettings &settings)
{
    return settings.value(kKey).toStringList();
}

QStringList RecentFiles::add(QSettings &settings, const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = load(settings);
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaximum)
        files.removeLast();
    settings.setValue(kKey, files);
    return files;
}

void RecentFiles::clear(QSettings &settings)
{
    settings.remove(kKey);
}

} // namespace pyrometer::ui
