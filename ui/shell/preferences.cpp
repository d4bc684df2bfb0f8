#include "ui/shell/preferences.h"

#include <QApplication>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

#include <algorithm>
#include <atomic>
#include <optional>

namespace pyrometer::ui {

namespace {

const QString kThemeKey = QStringLiteral("appearance/theme");
const QString kTimeUnitKey = QStringLiteral("display/timeUnit");
const QString kColorModeKey = QStringLiteral("timeline/colorMode");
const QString kWarmupKey = QStringLiteral("model/warmup");
const QString kIterationsKey = QStringLiteral("model/iterations");

std::atomic<TimeUnit> g_timeUnit{TimeUnit::Auto};

// The platform's look, kept before the first theme change so System can return to it.
struct PlatformLook {
    QString style;
    QPalette palette;
};
std::optional<PlatformLook> g_platform;

QPalette darkPalette()
{
    QPalette p;
    const QColor window(45, 47, 51), base(30, 32, 35), alternate(38, 40, 44), text(230, 232, 235);
    const QColor disabled(128, 131, 136), highlight(61, 122, 204), link(110, 170, 255);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 90, 90));
    p.setColor(QPalette::Light, QColor(70, 73, 78));
    p.setColor(QPalette::Midlight, QColor(58, 60, 65));
    p.setColor(QPalette::Mid, QColor(80, 83, 88));
    p.setColor(QPalette::Dark, QColor(22, 23, 25));
    p.setColor(QPalette::Shadow, QColor(10, 10, 10));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, link);
    p.setColor(QPalette::LinkVisited, QColor(180, 140, 255));
    for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(80, 83, 88));
    return p;
}

} // namespace

Preferences Preferences::load(const QSettings &settings)
{
    Preferences p;
    const QString theme = settings.value(kThemeKey).toString();
    p.theme = theme == QLatin1String("dark") ? Theme::Dark : theme == QLatin1String("light") ? Theme::Light : Theme::System;
    p.timeUnit = timeUnitFromName(settings.value(kTimeUnitKey).toString().toStdString()).value_or(TimeUnit::Auto);
    p.colorMode = settings.value(kColorModeKey).toString() == QLatin1String("name") ? timeline::ColorMode::ByName
                                                                                    : timeline::ColorMode::ByCategory;
    p.wheelZooms = settings.value(kWheelZoomsKey, true).toBool();
    p.warmup = std::clamp(settings.value(kWarmupKey, p.warmup).toInt(), 0, 10000);
    p.iterations = std::clamp(settings.value(kIterationsKey, p.iterations).toInt(), 1, 100000);
    return p;
}

void Preferences::save(QSettings &settings) const
{
    settings.setValue(kThemeKey, theme == Theme::Dark    ? QStringLiteral("dark")
                                 : theme == Theme::Light ? QStringLiteral("light")
                                                         : QStringLiteral("system"));
    settings.setValue(kTimeUnitKey, QString::fromUtf8(timeUnitName(timeUnit).data(), qsizetype(timeUnitName(timeUnit).size())));
    settings.setValue(kColorModeKey, colorMode == timeline::ColorMode::ByName ? QStringLiteral("name") : QStringLiteral("category"));
    settings.setValue(kWheelZoomsKey, wheelZooms);
    settings.setValue(kWarmupKey, warmup);
    settings.setValue(kIterationsKey, iterations);
}

void applyTheme(Theme theme)
{
    auto *app = qobject_cast<QApplication *>(QCoreApplication::instance());
    if (!app)
        return;
    if (!g_platform) {
        if (theme == Theme::System)
            return; // nothing was changed yet
        g_platform = PlatformLook{QApplication::style()->name(), QApplication::palette()};
    }
    switch (theme) {
    case Theme::System:
        QApplication::setStyle(QStyleFactory::create(g_platform->style));
        QApplication::setPalette(g_platform->palette);
        break;
    case Theme::Light:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case Theme::Dark:
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
        break;
    }
}

bool paletteIsDark()
{
    const QPalette palette = QApplication::palette();
    return palette.color(QPalette::WindowText).lightness() > palette.color(QPalette::Window).lightness();
}

void setDisplayTimeUnit(TimeUnit unit)
{
    g_timeUnit = unit;
}

TimeUnit displayTimeUnit()
{
    return g_timeUnit;
}

QString displayDuration(std::int64_t nanoseconds)
{
    return QString::fromStdString(formatDuration(nanoseconds, g_timeUnit));
}

} // namespace pyrometer::ui
