#pragma once

#include <QStringList>

#include "core/record/launcher.h"

class QSettings;

namespace pyrometer::ui {

// What the Record dialog remembers between runs (QSettings, group "record"): the last
// options, and the interpreters used, most recent first.
struct RecordSettings {
    record::RecordOptions options;
    QStringList interpreters;

    static RecordSettings load(const QSettings &settings);
    void save(QSettings &settings) const;
    // Puts python first in the list (at most 10 kept).
    void rememberInterpreter(const QString &python);
};

} // namespace pyrometer::ui
