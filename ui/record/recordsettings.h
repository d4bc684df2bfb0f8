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

    // A traces folder that is the default one of an earlier version is left out: the default
    // follows the script.
    static RecordSettings load(const QSettings &settings);
    void save(QSettings &settings) const;
    // Puts python first in the list (at most 10 kept).
    void rememberInterpreter(const QString &python);
};

// The one interpreter setting (QSettings "record/python"): what Record, the Model page's Python
// engine and the window's --python use. choosePython stores it and puts it first among the
// Record dialog's interpreters; chosenPython reads it, python3 when none was chosen.
void choosePython(QSettings &settings, const QString &python);
QString chosenPython(const QSettings &settings);

// The folder records go to by default: <user data>/pyrometer/records/<script's name>
// (~/.local/share/pyrometer/records/train on Linux), whatever the application's names are.
QString defaultRecordFolder(const QString &script);
// Where versions before it put them by default: <app data>/records, which is
// ~/.local/share/Pyrometer/Pyrometer/records with the window's organization and application names.
QString legacyRecordsFolder();

} // namespace pyrometer::ui
