#include "ui/plots/snapshotplot.h"

#include "core/util/format.h"
#include "ui/plots/plotframe.h"

#include <qcustomplot.h>

#include <QToolTip>

#include <algorithm>

namespace pyrometer::ui::plots {

QColor SnapshotPlot::bandColor(std::size_t i, std::size_t count)
{
    if (i + 1 == count)
        return QColor(0x9e, 0x9e, 0x9e); // the rest
    static const QColor colors[] = {QColor(0x1e, 0x88, 0xe5), QColor(0xfb, 0x8c, 0x00), QColor(0x43, 0xa0, 0x47),
                                    QColor(0xe5, 0x39, 0x35), QColor(0x8e, 0x24, 0xaa), QColor(0x00, 0xac, 0xc1),
                                    QColor(0x6d, 0x4c, 0x41), QColor(0xd8, 0x1b, 0x60), QColor(0x7c, 0xb3, 0x42)};
    return colors[i % std::size(colors)];
}

SnapshotPlot::SnapshotPlot(QWidget *parent) : QWidget(parent), m_plot(createPlot(this, 240))
{
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->legend->setWrap(3); // stack labels are long: three a row
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent *event) {
        const QString text =
            toolTipAt(m_plot->xAxis->pixelToCoord(event->pos().x()), m_plot->yAxis->pixelToCoord(event->pos().y()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    });
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (event->button() == Qt::LeftButton && m_plot->axisRect()->rect().contains(event->pos()))
            Q_EMIT instantClicked(m_plot->xAxis->pixelToCoord(event->pos().x()));
    });
}

void SnapshotPlot::setBands(const snapshot::StackBands &bands, const std::vector<std::int64_t> &reserved, double peakX,
                            const std::vector<double> &oomXs)
{
    m_bands = bands;
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_instant = nullptr;
    m_plot->xAxis->setLabel(bands.xIsTime ? tr("time after the first event (ms)")
                                          : tr("event (the snapshot has no times)"));
    std::int64_t highest = 0;
    for (const auto r : reserved)
        highest = std::max(highest, r);
    std::vector<std::int64_t> total(bands.x.size(), 0);
    for (const auto &band : bands.bytes)
        for (std::size_t s = 0; s < band.size(); ++s)
            total[s] += band[s];
    for (const auto t : total)
        highest = std::max(highest, t);
    m_bytesPerUnit = highest >= 4 * kGiB ? double(kGiB) : double(kMiB);
    m_plot->yAxis->setLabel(m_bytesPerUnit == double(kGiB) ? tr("active memory (GiB)") : tr("active memory (MiB)"));

    QVector<double> keys(bands.x.begin(), bands.x.end());
    // Bands stacked from the largest up: each graph is the running sum, filled down to the one below.
    std::vector<double> sum(bands.x.size(), 0);
    QCPGraph *below = nullptr;
    const std::size_t count = bands.bytes.size();
    for (std::size_t b = 0; b < count; ++b) {
        QVector<double> values(qsizetype(bands.x.size()));
        for (std::size_t s = 0; s < bands.x.size(); ++s) {
            sum[s] += double(bands.bytes[b][s]) / m_bytesPerUnit;
            values[qsizetype(s)] = sum[s];
        }
        auto *graph = m_plot->addGraph();
        const QColor color = bandColor(b, count);
        QString label = QString::fromStdString(bands.labels[b]);
        if (label.size() > 48)
            label = label.left(22) + QStringLiteral("…") + label.right(25);
        graph->setName(label);
        graph->setPen(QPen(color.darker(115), 1));
        QColor fill = color;
        fill.setAlpha(190);
        graph->setBrush(fill);
        graph->setLineStyle(QCPGraph::lsStepLeft);
        if (below)
            graph->setChannelFillGraph(below);
        graph->setData(keys, values, true);
        below = graph;
    }
    if (!reserved.empty()) {
        auto *graph = m_plot->addGraph();
        graph->setName(tr("reserved"));
        graph->setPen(QPen(QColor(0x42, 0x42, 0x42), 1.5, Qt::DashLine));
        graph->setLineStyle(QCPGraph::lsStepLeft);
        QVector<double> values;
        for (const auto r : reserved)
            values << double(r) / m_bytesPerUnit;
        graph->setData(keys, values, true);
    }
    const double first = keys.isEmpty() ? 0 : keys.front();
    const double last = keys.isEmpty() ? 1 : keys.back();
    const double span = std::max(last - first, 1e-3);
    auto mark = [&](double x, const QColor &color, const QString &text) {
        auto *line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(x, 0);
        line->point2->setCoords(x, 1);
        line->setPen(QPen(color, 1.5, Qt::DotLine));
        auto *label = new QCPItemText(m_plot);
        label->position->setType(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(x, double(highest) / m_bytesPerUnit * 1.12);
        // Labels grow away from the nearer edge, so none runs off the plot.
        label->setPositionAlignment(Qt::AlignBottom | (x > first + span * 0.9   ? Qt::AlignRight
                                                       : x < first + span * 0.1 ? Qt::AlignLeft
                                                                                : Qt::AlignHCenter));
        label->setText(text);
        label->setColor(color);
        label->setFont(QFont(font().family(), font().pointSize(), QFont::Bold));
    };
    mark(peakX, QColor(0x15, 0x65, 0xc0), tr("peak"));
    for (std::size_t i = 0; i < oomXs.size(); ++i)
        mark(oomXs[i], QColor(0xc6, 0x28, 0x28), oomXs.size() > 1 ? tr("OOM %1").arg(i + 1) : tr("OOM"));
    m_instant = new QCPItemStraightLine(m_plot);
    m_instant->setPen(QPen(QColor(0x21, 0x21, 0x21), 2));
    m_plot->xAxis->setRange(first - span * 0.01, last + span * 0.01);
    m_plot->yAxis->setRange(0, double(highest) / m_bytesPerUnit * 1.2 + 1e-9);
    setInstant(m_instantX);
}

QString SnapshotPlot::toolTipAt(double x, double y) const
{
    const auto &xs = m_bands.x;
    if (xs.empty() || x < xs.front() || y < 0)
        return {};
    // The sample in force at x (the curves are steps), and the band whose slice holds y.
    const std::size_t s = std::size_t(std::upper_bound(xs.begin(), xs.end(), x) - xs.begin()) - 1;
    const double bytes = y * m_bytesPerUnit;
    double below = 0;
    for (std::size_t b = 0; b < m_bands.bytes.size(); ++b) {
        const double here = double(m_bands.bytes[b][s]);
        if (bytes < below + here) {
            QString stack = QString::fromStdString(m_bands.keys[b]).toHtmlEscaped();
            stack.replace(QLatin1Char(';'), QStringLiteral("<br>"));
            return tr("<b>%1</b><br>%2 live %3 %4%5")
                .arg(QString::fromStdString(m_bands.labels[b]).toHtmlEscaped(),
                     QString::fromStdString(formatBytes(std::uint64_t(std::max<std::int64_t>(0, m_bands.bytes[b][s])))),
                     m_bands.xIsTime ? tr("at") : tr("after event"),
                     m_bands.xIsTime ? tr("%1 ms").arg(xs[s], 0, 'f', 2) : QString::number(xs[s], 'f', 0),
                     stack.isEmpty() ? QString() : QStringLiteral("<br><small>") + stack + QStringLiteral("</small>"));
        }
        below += here;
    }
    return {};
}

void SnapshotPlot::setInstant(double x)
{
    m_instantX = x;
    if (m_instant) {
        m_instant->point1->setCoords(x, 0);
        m_instant->point2->setCoords(x, 1);
    }
    m_plot->replot();
}

} // namespace pyrometer::ui::plots
