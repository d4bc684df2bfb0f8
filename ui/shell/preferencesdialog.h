#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QDialog>

#include "ui/shell/preferences.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace pyrometer::ui {

// Edit > Preferences: theme, time unit, timeline colours, mouse wheel, the Model page's
// default warm-up and timed runs, the Roofline's roof for devices the table lacks, and the
// interpreter with torch the Python engine and Record run. It edits a Preferences value; the window stores and applies
// it.
class PreferencesDialog final : public QDialog {
    Q_OBJECT
public:
    explicit PreferencesDialog(const Preferences &preferences, QWidget *parent = nullptr);

    Preferences preferences() const;
    void setPreferences(const Preferences &preferences);

    QComboBox *themeCombo() const { return m_theme; }
    QComboBox *timeUnitCombo() const { return m_timeUnit; }
    QComboBox *colorCombo() const { return m_colors; }
    QCheckBox *wheelCheck() const { return m_wheel; }
    QSpinBox *warmupSpin() const { return m_warmup; }
    QSpinBox *iterationsSpin() const { return m_iterations; }
    QComboBox *roofDeviceCombo() const { return m_roofDevice; } // data: "", a table name, "custom"
    QDoubleSpinBox *roofPeakSpin() const { return m_roofPeak; }           // TFLOP/s
    QDoubleSpinBox *roofBandwidthSpin() const { return m_roofBandwidth; } // GB/s
    QLineEdit *pythonEdit() const { return m_python; }

private:
    QComboBox *m_theme;
    QComboBox *m_timeUnit;
    QComboBox *m_colors;
    QCheckBox *m_wheel;
    QSpinBox *m_warmup;
    QSpinBox *m_iterations;
    QComboBox *m_roofDevice;
    QDoubleSpinBox *m_roofPeak;
    QDoubleSpinBox *m_roofBandwidth;
    QLineEdit *m_python;
};

} // namespace pyrometer::ui
