#include "ui/plots/rooflineplot.h"

#include "ui/plots/plotframe.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QStringList>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace pyrometer::ui::plots {

namespace {

// "989 TFLOP/s", "3.35 TB/s": the units an engineer reads a datasheet in.
QString rate(double value, const QString &unit)
{
    const char *prefixes[] = {"", "k", "M", "G", "T", "P"};
    int p = 0;
    while (std::abs(value) >= 1000 && p < 5) {
        value /= 1000;
        ++p;
    }
    return QStringLiteral("%1 %2%3").arg(value, 0, 'g', 3).arg(QString::fromLatin1(prefixes[p]), unit);
}

// Ticks at powers of ten, written with their prefix.
class PrefixTicker final : public QCPAxisTickerLog {
public:
    explicit PrefixTicker(QString unit) : m_unit(std::move(unit)) { setSubTickCount(8); }

protected:
    QString getTickLabel(double tick, const QLocale &, QChar, int) override { return rate(tick, m_unit); }

private:
    QString m_unit;
};

} // namespace

QColor RooflinePlot::boundColor(analysis::Bound bound)
{
    switch (bound) {
    case analysis::Bound::Memory: return QColor(0x1e, 0x88, 0xe5);
    case analysis::Bound::Compute: return QColor(0xe6, 0x51, 0x00);
    case analysis::Bound::Unknown: break;
    }
    return QColor(0x75, 0x75, 0x75);
}

double RooflinePlot::markerSize(double share)
{
    // Area follows the share of the time: a 1% op is small, a 50% one large.
    return std::clamp(6.0 + 40.0 * std::sqrt(std::max(share, 0.0)), 6.0, 40.0);
}

RooflinePlot::RooflinePlot(QWidget *parent) : QWidget(parent), m_plot(createPlot(this, 260)), m_key(new QLabel(this))
{
    // The points' colours and sizes in a key of their own, above the plot: QCustomPlot's legend
    // lists plottables, and each point is one.
    const auto swatch = [](analysis::Bound bound, const QString &text) {
        return QStringLiteral("<span style=\"color:%1\">&#9679;</span>&nbsp;%2").arg(boundColor(bound).name(), text);
    };
    m_key->setTextFormat(Qt::RichText);
    m_key->setText(QStringList{swatch(analysis::Bound::Memory, tr("memory-bound")),
                               swatch(analysis::Bound::Compute, tr("compute-bound")),
                               swatch(analysis::Bound::Unknown, tr("bound unknown")),
                               tr("a marker's area: its share of the time; lines: the roofs")}
                       .join(QStringLiteral(" &nbsp;&nbsp; ")));
    m_key->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    static_cast<QVBoxLayout *>(layout())->insertWidget(0, m_key);
    // Points are named by hovering, roofs by their labels: no legend. Its row goes too, or its
    // empty grid would narrow the axes' column to nothing.
    m_plot->setAutoAddPlottableToLegend(false);
    m_plot->plotLayout()->remove(m_plot->legend); // deletes it; QCustomPlot forgets it
    m_plot->plotLayout()->simplify();
    m_plot->xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte)"));
    m_plot->yAxis->setLabel(tr("Achieved"));
    for (auto *axis : {m_plot->xAxis, m_plot->yAxis})
        axis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new PrefixTicker(QString())));
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new PrefixTicker(QStringLiteral("FLOP/s"))));
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &RooflinePlot::hover);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        const int point = pointAt(event->position());
        if (point >= 0) {
            setSelected(point);
            Q_EMIT pointClicked(point);
        }
    });
}

void RooflinePlot::setData(std::vector<RoofLine> roofs, std::vector<RooflinePoint> points)
{
    m_roofs = std::move(roofs);
    m_points = std::move(points);
    m_selected = -1;
    rebuild();
}

void RooflinePlot::setSelected(int point)
{
    m_selected = point >= 0 && point < int(m_points.size()) ? point : -1;
    rebuild();
}

void RooflinePlot::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    // The range: every point and every ridge, with room around them.
    double xLow = 1e300, xHigh = 0, yLow = 1e300, yHigh = 0;
    for (const auto &p : m_points) {
        xLow = std::min(xLow, p.intensity);
        xHigh = std::max(xHigh, p.intensity);
        yLow = std::min(yLow, p.flops);
        yHigh = std::max(yHigh, p.flops);
    }
    for (const auto &roof : m_roofs) {
        const double ridge = roof.peakFlops / roof.bandwidth;
        xLow = std::min(xLow, ridge / 10);
        xHigh = std::max(xHigh, ridge * 4);
        yHigh = std::max(yHigh, roof.peakFlops);
        yLow = std::min(yLow, roof.peakFlops / 1000);
    }
    if (xHigh <= 0 || yHigh <= 0) {
        xLow = 0.1, xHigh = 1000, yLow = 1e9, yHigh = 1e15;
    }
    xLow /= 2, xHigh *= 2, yLow /= 3, yHigh *= 3;
    m_plot->xAxis->setRange(xLow, xHigh);
    m_plot->yAxis->setRange(yLow, yHigh);

    // Roofs: the slope of the bandwidth up to the ridge, then flat at the peak.
    for (std::size_t r = 0; r < m_roofs.size(); ++r) {
        const auto &roof = m_roofs[r];
        const double ridge = roof.peakFlops / roof.bandwidth;
        auto *line = m_plot->addGraph();
        line->setData({xLow, ridge, xHigh}, {xLow * roof.bandwidth, roof.peakFlops, roof.peakFlops}, true);
        QColor color = palette().color(QPalette::WindowText);
        color.setAlphaF(r == 0 ? 0.85f : 0.55f);
        line->setPen(QPen(color, r == 0 ? 2 : 1.5, r == 0 ? Qt::SolidLine : Qt::DashLine));
        auto *label = new QCPItemText(m_plot);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        label->position->setCoords(xHigh / 1.15, roof.peakFlops * 1.05);
        label->setText(QStringLiteral("%1  %2").arg(roof.label, rate(roof.peakFlops, QStringLiteral("FLOP/s"))));
        label->setColor(color);
    }
    if (!m_roofs.empty()) {
        // The bandwidth, along the slope near its lower end.
        const auto &roof = m_roofs.front();
        auto *label = new QCPItemText(m_plot);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        const double x = std::max(xLow * 2, yLow * 2 / roof.bandwidth);
        label->position->setCoords(x, x * roof.bandwidth * 1.4);
        label->setText(rate(roof.bandwidth, QStringLiteral("B/s")));
        label->setRotation(-std::atan2(1.0, 1.0) * 180 / M_PI * 0.5);
        label->setColor(palette().color(QPalette::WindowText));
    }

    // Series (a layer across batch sizes) as thin lines, in order.
    std::map<int, std::pair<QVector<double>, QVector<double>>> series;
    for (const auto &p : m_points)
        if (p.series >= 0) {
            series[p.series].first.push_back(p.intensity);
            series[p.series].second.push_back(p.flops);
        }
    for (auto &[index, xy] : series) {
        auto *curve = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
        curve->setData(xy.first, xy.second);
        curve->setPen(QPen(palette().color(QPalette::Mid), 1));
    }
    // Points, largest first so small ones stay visible on top.
    std::vector<int> order(m_points.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = int(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return m_points[a].share > m_points[b].share; });
    for (const int i : order) {
        const auto &p = m_points[std::size_t(i)];
        auto *graph = m_plot->addGraph();
        graph->setLineStyle(QCPGraph::lsNone);
        QColor fill = boundColor(p.bound);
        fill.setAlphaF(0.55f);
        const bool selected = i == m_selected;
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                               QPen(selected ? palette().color(QPalette::WindowText) : boundColor(p.bound),
                                                    selected ? 3 : 1.2),
                                               fill, markerSize(p.share)));
        graph->setData({p.intensity}, {p.flops});
    }
    m_plot->replot();
}

QPointF RooflinePlot::pointPosition(int point) const
{
    const auto &p = m_points[std::size_t(point)];
    return {m_plot->xAxis->coordToPixel(p.intensity), m_plot->yAxis->coordToPixel(p.flops)};
}

int RooflinePlot::pointAt(const QPointF &position) const
{
    int best = -1;
    double bestDistance = 0;
    for (int i = 0; i < int(m_points.size()); ++i) {
        const auto at = pointPosition(i);
        const double distance = std::hypot(at.x() - position.x(), at.y() - position.y());
        const double reach = std::max(6.0, markerSize(m_points[std::size_t(i)].share) / 2);
        // The nearest centre wins among the markers the position lies in.
        if (distance <= reach && (best < 0 || distance < bestDistance)) {
            best = i;
            bestDistance = distance;
        }
    }
    return best;
}

QString RooflinePlot::tooltip(int point) const
{
    if (point < 0 || point >= int(m_points.size()))
        return {};
    const auto &p = m_points[std::size_t(point)];
    return QStringLiteral("<b>%1</b><br>%2").arg(p.name.toHtmlEscaped(), p.details);
}

void RooflinePlot::hover(QMouseEvent *event)
{
    const int point = pointAt(event->position());
    if (point < 0) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), tooltip(point), m_plot);
}

} // namespace pyrometer::ui::plots
