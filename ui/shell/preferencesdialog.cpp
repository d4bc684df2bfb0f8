#include "ui/shell/preferencesdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace pyrometer::ui {

PreferencesDialog::PreferencesDialog(const Preferences &preferences, QWidget *parent)
    : QDialog(parent), m_theme(new QComboBox(this)), m_timeUnit(new QComboBox(this)), m_colors(new QComboBox(this)),
      m_wheel(new QCheckBox(tr("Mouse wheel zooms the timeline"), this)), m_warmup(new QSpinBox(this)),
      m_iterations(new QSpinBox(this)), m_roofDevice(new QComboBox(this)), m_roofPeak(new QDoubleSpinBox(this)),
      m_roofBandwidth(new QDoubleSpinBox(this)), m_python(new QLineEdit(this))
{
    setWindowTitle(tr("Preferences"));

    auto *appearance = new QGroupBox(tr("Appearance"), this);
    auto *appearanceForm = new QFormLayout(appearance);
    m_theme->addItem(tr("Follow the system"), int(Theme::System));
    m_theme->addItem(tr("Light"), int(Theme::Light));
    m_theme->addItem(tr("Dark"), int(Theme::Dark));
    appearanceForm->addRow(tr("Theme"), m_theme);
    m_timeUnit->addItem(tr("Automatic (812 ns, 12.3 µs, 4.56 ms)"), int(TimeUnit::Auto));
    m_timeUnit->addItem(tr("Nanoseconds"), int(TimeUnit::Nanoseconds));
    m_timeUnit->addItem(tr("Microseconds"), int(TimeUnit::Microseconds));
    m_timeUnit->addItem(tr("Milliseconds"), int(TimeUnit::Milliseconds));
    m_timeUnit->addItem(tr("Seconds"), int(TimeUnit::Seconds));
    m_timeUnit->setToolTip(tr("How tables, details and reports show durations"));
    appearanceForm->addRow(tr("Durations in"), m_timeUnit);

    auto *timeline = new QGroupBox(tr("Timeline"), this);
    auto *timelineForm = new QFormLayout(timeline);
    m_colors->addItem(tr("By category"), int(timeline::ColorMode::ByCategory));
    m_colors->addItem(tr("By name"), int(timeline::ColorMode::ByName));
    m_colors->setToolTip(tr("How the timeline colours events when it opens a trace"));
    timelineForm->addRow(tr("Colour events"), m_colors);
    m_wheel->setToolTip(tr("When off, the wheel scrolls and Ctrl+wheel zooms"));
    timelineForm->addRow(m_wheel);

    auto *model = new QGroupBox(tr("Model profiling"), this);
    auto *modelForm = new QFormLayout(model);
    m_warmup->setRange(0, 10000);
    m_warmup->setToolTip(tr("Untimed runs after the cold one"));
    modelForm->addRow(tr("Warm-up runs"), m_warmup);
    m_iterations->setRange(1, 100000);
    m_iterations->setToolTip(tr("Timed runs"));
    modelForm->addRow(tr("Timed runs"), m_iterations);

    auto *roofline = new QGroupBox(tr("Roofline"), this);
    auto *rooflineForm = new QFormLayout(roofline);
    m_roofDevice->addItem(tr("None (the roof stays unknown)"), QString());
    for (const auto &device : analysis::deviceTable())
        m_roofDevice->addItem(QString::fromStdString(device.name), QString::fromStdString(device.name));
    m_roofDevice->addItem(tr("Custom: the peak and bandwidth below"), QStringLiteral("custom"));
    m_roofDevice->setToolTip(tr("The roof for traces whose device the table lacks (an \"AMD Radeon Graphics\", a CPU)"));
    rooflineForm->addRow(tr("Device the table lacks"), m_roofDevice);
    m_roofPeak->setRange(0, 100000);
    m_roofPeak->setDecimals(1);
    m_roofPeak->setSuffix(tr(" TFLOP/s"));
    rooflineForm->addRow(tr("Peak"), m_roofPeak);
    m_roofBandwidth->setRange(0, 100000);
    m_roofBandwidth->setDecimals(0);
    m_roofBandwidth->setSuffix(tr(" GB/s"));
    rooflineForm->addRow(tr("Memory bandwidth"), m_roofBandwidth);
    const auto enableCustom = [this] {
        const bool custom = m_roofDevice->currentData().toString() == QLatin1String("custom");
        m_roofPeak->setEnabled(custom);
        m_roofBandwidth->setEnabled(custom);
    };
    connect(m_roofDevice, &QComboBox::currentIndexChanged, this, enableCustom);

    auto *python = new QGroupBox(tr("Python"), this);
    auto *pythonForm = new QFormLayout(python);
    m_python->setPlaceholderText(tr("python3 (a venv's or conda's python with torch)"));
    m_python->setToolTip(tr("The interpreter whose torch runs .pt2 programs, model.py factories and Record: the same "
                            "choice as the Record dialog's and the window's --python"));
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const auto file = QFileDialog::getOpenFileName(this, tr("Choose a Python interpreter"), m_python->text());
        if (!file.isEmpty())
            m_python->setText(file);
    });
    auto *pythonRow = new QHBoxLayout;
    pythonRow->addWidget(m_python, 1);
    pythonRow->addWidget(browse);
    pythonForm->addRow(tr("Interpreter"), pythonRow);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(appearance);
    layout->addWidget(timeline);
    layout->addWidget(model);
    layout->addWidget(roofline);
    layout->addWidget(python);
    layout->addStretch(1);
    layout->addWidget(buttons);
    setPreferences(preferences);
}

Preferences PreferencesDialog::preferences() const
{
    Preferences p;
    p.theme = Theme(m_theme->currentData().toInt());
    p.timeUnit = TimeUnit(m_timeUnit->currentData().toInt());
    p.colorMode = timeline::ColorMode(m_colors->currentData().toInt());
    p.wheelZooms = m_wheel->isChecked();
    p.warmup = m_warmup->value();
    p.iterations = m_iterations->value();
    p.roofDevice = m_roofDevice->currentData().toString();
    p.roofPeakTflops = m_roofPeak->value();
    p.roofBandwidthGbs = m_roofBandwidth->value();
    p.python = m_python->text().trimmed();
    return p;
}

void PreferencesDialog::setPreferences(const Preferences &p)
{
    m_theme->setCurrentIndex(m_theme->findData(int(p.theme)));
    m_timeUnit->setCurrentIndex(m_timeUnit->findData(int(p.timeUnit)));
    m_colors->setCurrentIndex(m_colors->findData(int(p.colorMode)));
    m_wheel->setChecked(p.wheelZooms);
    m_warmup->setValue(p.warmup);
    m_iterations->setValue(p.iterations);
    const int roof = m_roofDevice->findData(p.roofDevice);
    m_roofDevice->setCurrentIndex(roof < 0 ? 0 : roof);
    m_roofPeak->setValue(p.roofPeakTflops);
    m_roofBandwidth->setValue(p.roofBandwidthGbs);
    m_python->setText(p.python);
    const bool custom = p.roofDevice == QLatin1String("custom");
    m_roofPeak->setEnabled(custom);
    m_roofBandwidth->setEnabled(custom);
}

} // namespace pyrometer::ui
