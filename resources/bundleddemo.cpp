#include "resources/bundleddemo.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>

namespace pyrometer::resources {

QStringList extractDemo(QString *error)
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/demo");
    if (!QDir().mkpath(dir)) {
        *error = QObject::tr("%1: cannot create the demo directory").arg(dir);
        return {};
    }
    QStringList paths;
    for (const auto *name : {"demo.pt.trace.json", "demo_model.pt"}) {
        QFile source(QStringLiteral(":/demo/") + QLatin1String(name));
        const QString target = dir + QLatin1Char('/') + QLatin1String(name);
        QFile existing(target);
        // Rewrite when missing or different, so a newer build never opens an older demo.
        if (!existing.exists() || existing.size() != source.size()) {
            QFile::remove(target);
            if (!source.copy(target)) {
                *error = QObject::tr("%1: cannot write the demo file (%2)").arg(target, source.errorString());
                return {};
            }
            QFile::setPermissions(target, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
        }
        paths.append(target);
    }
    return paths;
}

} // namespace pyrometer::resources
