#include "ui/shell/preferences.h"

#include "ui/record/recordsettings.h"

#include <QApplication>
#include <QPainter>
#include <QPalette>
#include <QProxyStyle>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleOption>
#include <QTabBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextEdit>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace pyrometer::ui {

namespace {

const QString kThemeKey = QStringLiteral("appearance/theme");
const QString kTimeUnitKey = QStringLiteral("display/timeUnit");
const QString kColorModeKey = QStringLiteral("timeline/colorMode");
const QString kWarmupKey = QStringLiteral("model/warmup");
const QString kIterationsKey = QStringLiteral("model/iterations");
const QString kRoofDeviceKey = QStringLiteral("roofline/device");
const QString kRoofPeakKey = QStringLiteral("roofline/peakTflops");
const QString kRoofBandwidthKey = QStringLiteral("roofline/bandwidthGbs");

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
    // Secondary text (placeholders, captions) reads at 5:1 or more on the window, base and
    // alternate base (WCAG AA asks 4.5:1); disabled text stays dimmer, as it is meant to.
    const QColor secondary(158, 162, 168);
    const QColor disabled(128, 131, 136), highlight(61, 122, 204), link(110, 170, 255);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, secondary);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 90, 90));
    // Buttons a step above the window; Mid, which outlines check boxes and radio buttons (see
    // IndicatorStyle), 3:1 against the window as controls need.
    p.setColor(QPalette::Button, QColor(56, 59, 64));
    p.setColor(QPalette::Light, QColor(82, 86, 92));
    p.setColor(QPalette::Midlight, QColor(66, 69, 74));
    p.setColor(QPalette::Mid, QColor(128, 132, 138));
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

// Fusion's light palette, with secondary text dark enough for 4.5:1 (Qt's default is the
// text at half opacity, 4:1 on white) and Mid, which outlines indicators, at 3:1 on the window.
QPalette lightPalette(const QPalette &standard)
{
    QPalette p = standard;
    p.setColor(QPalette::PlaceholderText, QColor(96, 99, 104));
    p.setColor(QPalette::Mid, QColor(125, 125, 125));
    return p;
}

// Fusion, with what it draws too faintly drawn again:
// - the outline of check boxes and radio buttons, in a shade of the window (darker by 140%)
//   that leaves them all but invisible on a dark one: drawn again in the palette's Mid (the
//   light and dark themes only);
// - a tab bar's keyboard focus, a rectangle of the highlight at a third of its opacity that a
//   selected tab all but hides: drawn as a 2 px outline of the highlight.
class ClearerFusion final : public QProxyStyle {
public:
    ClearerFusion(QStyle *fusion, bool outlineIndicators) : QProxyStyle(fusion), m_outlineIndicators(outlineIndicators)
    {}

    void drawPrimitive(PrimitiveElement element, const QStyleOption *option, QPainter *painter,
                       const QWidget *widget) const override
    {
        if (element == PE_FrameFocusRect && qobject_cast<const QTabBar *>(widget))
            return; // drawn with the tab (drawControl)
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        if (!m_outlineIndicators || (element != PE_IndicatorCheckBox && element != PE_IndicatorRadioButton))
            return;
        if ((option->state & State_HasFocus) && (option->state & State_KeyboardFocusChange))
            return; // Fusion's focus outline stays
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, element == PE_IndicatorRadioButton);
        painter->setBrush(Qt::NoBrush);
        painter->setPen(QPen(option->palette.color(QPalette::Mid), 1));
        const QRectF box = QRectF(option->rect).adjusted(0.5, 0.5, -0.5, -0.5);
        if (element == PE_IndicatorCheckBox)
            painter->drawRect(box);
        else
            painter->drawEllipse(box.adjusted(0.5, 0.5, -0.5, -0.5));
        painter->restore();
    }

    void drawControl(ControlElement element, const QStyleOption *option, QPainter *painter,
                     const QWidget *widget) const override
    {
        QProxyStyle::drawControl(element, option, painter, widget);
        if (element == CE_TabBarTabLabel && (option->state & State_HasFocus) &&
            (option->state & State_KeyboardFocusChange))
            outline(painter, option->rect.adjusted(2, 2, -2, -1), option->palette.color(QPalette::Highlight), 2);
    }

private:
    static void outline(QPainter *painter, const QRect &rect, const QColor &color, int width)
    {
        painter->fillRect(QRect(rect.left(), rect.top(), rect.width(), width), color);
        painter->fillRect(QRect(rect.left(), rect.bottom() - width + 1, rect.width(), width), color);
        painter->fillRect(QRect(rect.left(), rect.top(), width, rect.height()), color);
        painter->fillRect(QRect(rect.right() - width + 1, rect.top(), width, rect.height()), color);
    }

    bool m_outlineIndicators;
};

QStyle *fusion()
{
    return new ClearerFusion(QStyleFactory::create(QStringLiteral("Fusion")), true);
}

// The platform's style; Fusion (what Qt picks where the desktop names none) with its tab
// focus drawn clearly.
QStyle *platformStyle(const QString &name)
{
    QStyle *style = QStyleFactory::create(name);
    if (style && name.compare(QLatin1String("fusion"), Qt::CaseInsensitive) == 0)
        return new ClearerFusion(style, false);
    return style;
}

// Qt's HTML import gives each link the palette's link colour when the text is set: a text shown
// before the theme changed keeps the old theme's (dark blue on a dark window). Its links in
// that colour take the new one; a link given a colour of its own keeps it.
void recolorLinks(QTextDocument *document, const QColor &from, const QColor &to)
{
    std::vector<std::pair<int, int>> links; // position, length
    for (auto block = document->begin(); block != document->end(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const auto format = it.fragment().charFormat();
            if (format.isAnchor() && format.foreground().color() == from)
                links.emplace_back(it.fragment().position(), it.fragment().length());
        }
    QTextCharFormat recolored;
    recolored.setForeground(to);
    for (const auto &[position, length] : links) {
        QTextCursor cursor(document);
        cursor.setPosition(position);
        cursor.setPosition(position + length, QTextCursor::KeepAnchor);
        cursor.mergeCharFormat(recolored);
    }
}

// The palette a theme applies (System: the platform's).
QPalette themePalette(Theme theme)
{
    switch (theme) {
    case Theme::Dark: return darkPalette();
    case Theme::Light: {
        std::unique_ptr<QStyle> style(QStyleFactory::create(QStringLiteral("Fusion")));
        return lightPalette(style->standardPalette());
    }
    case Theme::System: break;
    }
    return g_platform ? g_platform->palette : QApplication::palette();
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
    p.roofDevice = settings.value(kRoofDeviceKey).toString();
    p.roofPeakTflops = std::max(0.0, settings.value(kRoofPeakKey, 0.0).toDouble());
    p.roofBandwidthGbs = std::max(0.0, settings.value(kRoofBandwidthKey, 0.0).toDouble());
    p.python = settings.value(QStringLiteral("record/python")).toString();
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
    settings.setValue(kRoofDeviceKey, roofDevice);
    settings.setValue(kRoofPeakKey, roofPeakTflops);
    settings.setValue(kRoofBandwidthKey, roofBandwidthGbs);
    choosePython(settings, python);
}

std::optional<analysis::DeviceRoof> fallbackRoof(const Preferences &preferences)
{
    if (preferences.roofDevice == QLatin1String("custom")) {
        if (preferences.roofPeakTflops <= 0 || preferences.roofBandwidthGbs <= 0)
            return std::nullopt;
        return analysis::customDevice(QObject::tr("custom (Preferences)").toStdString(), preferences.roofPeakTflops * 1e12,
                                      preferences.roofBandwidthGbs * 1e9);
    }
    if (preferences.roofDevice.isEmpty())
        return std::nullopt;
    return analysis::findDevice(preferences.roofDevice.toStdString());
}

void applyTheme(Theme theme)
{
    auto *app = qobject_cast<QApplication *>(QCoreApplication::instance());
    if (!app)
        return;
    if (!g_platform)
        g_platform = PlatformLook{QApplication::style()->name(), QApplication::palette()};
    const QColor oldLink = QApplication::palette().color(QPalette::Link);
    switch (theme) {
    case Theme::System:
        QApplication::setStyle(platformStyle(g_platform->style));
        QApplication::setPalette(g_platform->palette);
        break;
    case Theme::Light:
    case Theme::Dark:
        QApplication::setStyle(fusion());
        QApplication::setPalette(themePalette(theme));
        break;
    }
    const QColor newLink = QApplication::palette().color(QPalette::Link);
    if (newLink != oldLink)
        for (auto *widget : QApplication::allWidgets())
            if (auto *text = qobject_cast<QTextEdit *>(widget))
                recolorLinks(text->document(), oldLink, newLink);
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
