#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QString>

#include "core/analysis/deviceroof.h"
#include "core/util/format.h"
#include "ui/timeline/colors.h"

class QSettings;

namespace pyrometer::ui {

enum class Theme { System, Light, Dark };

// What Edit > Preferences sets, stored in QSettings.
struct Preferences {
    Theme theme = Theme::System;
    TimeUnit timeUnit = TimeUnit::Auto;
    timeline::ColorMode colorMode = timeline::ColorMode::ByCategory;
    bool wheelZooms = true; // the plain wheel zooms the timeline (else Ctrl+wheel does)
    int warmup = 10;        // the Model page's defaults
    int iterations = 50;
    // The Roofline's roof for traces whose device the device table lacks: a table device's
    // name, "custom" for the peak and bandwidth below, or empty for none.
    QString roofDevice;
    double roofPeakTflops = 0;
    double roofBandwidthGbs = 0;
    // The interpreter with torch the Python engine and Record run: the one setting Record's
    // dialog and the window's --python choose too (choosePython); empty: python3.
    QString python;

    static Preferences load(const QSettings &settings);
    void save(QSettings &settings) const;
    bool operator==(const Preferences &) const = default;
};

// The roof Preferences give for devices the table lacks, or nothing.
std::optional<analysis::DeviceRoof> fallbackRoof(const Preferences &preferences);

// The keys, for the places that read one setting alone.
inline const QString kWheelZoomsKey = QStringLiteral("timeline/wheelZooms");

// Applies the theme to the application: System restores the platform's style and palette;
// Light and Dark use Fusion with a light or dark palette. Fusion, in either case, draws a tab
// bar's keyboard focus as a clear outline of the highlight.
void applyTheme(Theme theme);
// True when the palette in use is dark (window text lighter than the window).
bool paletteIsDark();

// The unit views show durations in (the Preferences' choice), and a duration in it.
void setDisplayTimeUnit(TimeUnit unit);
TimeUnit displayTimeUnit();
QString displayDuration(std::int64_t nanoseconds);

} // namespace pyrometer::ui
