#include "ui/plots/memorycurveplot.h"

#include "core/util/format.h"
#include "ui/plots/plotframe.h"

#include <qcustomplot.h>

namespace pyrometer::ui::plots {

namespace {

QColor deviceColor(std::size_t i)
{
    static const QColor colors[] = {QColor(0x15, 0x65, 0xc0), QColor(0x2e, 0x7d, 0x32), QColor(0xc6, 0x28, 0x28),
                                    QColor(0x8e, 0x24, 0xaa), QColor(0xef, 0x6c, 0x00), QColor(0x00, 0x83, 0x8f)};
    return colors[i % std::size(colors)];
}

// A step curve: memory stays at a level until the next event.
void fill(QCPGraph *graph, const std::vector<analysis::MemoryPoint> &points, std::int64_t originNs, double unit)
{
    QVector<double> keys, values;
    keys.reserve(qsizetype(points.size()));
    values.reserve(qsizetype(points.size()));
    for (const auto &p : points) {
        keys << double(p.timeNs - originNs) / kNsPerMs;
        values << double(p.bytes) / unit;
    }
    graph->setData(keys, values, true);
    graph->setLineStyle(QCPGraph::lsStepLeft);
}

} // namespace

MemoryCurvePlot::MemoryCurvePlot(QWidget *parent) : QWidget(parent), m_plot(createPlot(this, 260))
{
    m_plot->xAxis->setLabel(tr("time since the trace start (ms)"));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
}

void MemoryCurvePlot::setReport(const analysis::MemoryReport &report, std::int64_t originNs)
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_peaks.clear();
    std::int64_t highest = 0;
    for (const auto &device : report.devices) {
        highest = std::max(highest, device.peakBytes);
        for (const auto &p : device.reserved)
            highest = std::max(highest, p.bytes);
    }
    m_bytesPerUnit = highest >= 4 * kGiB ? kGiB : kMiB;
    m_plot->yAxis->setLabel(m_bytesPerUnit == kGiB ? tr("memory (GiB)") : tr("memory (MiB)"));

    double first = 0, last = 0;
    bool any = false;
    for (const auto &device : report.devices) {
        for (const auto &p : device.allocated) {
            const double t = double(p.timeNs - originNs) / kNsPerMs;
            first = any ? std::min(first, t) : t;
            last = any ? std::max(last, t) : t;
            any = true;
        }
    }
    const double span = std::max(last - first, 1e-3);
    for (std::size_t i = 0; i < report.devices.size(); ++i) {
        const auto &device = report.devices[i];
        const auto name = QString::fromStdString(device.device);
        const QColor color = deviceColor(i);
        auto *allocated = m_plot->addGraph();
        allocated->setName(tr("%1 allocated").arg(name));
        allocated->setPen(QPen(color, 2));
        fill(allocated, device.allocated, originNs, m_bytesPerUnit);
        if (!device.reserved.empty()) {
            auto *reserved = m_plot->addGraph();
            reserved->setName(tr("%1 reserved").arg(name));
            reserved->setPen(QPen(color, 1.5, Qt::DashLine));
            fill(reserved, device.reserved, originNs, m_bytesPerUnit);
        }
        PeakMark mark;
        mark.device = name;
        mark.timeMs = double(device.peakTimeNs - originNs) / kNsPerMs;
        mark.bytes = double(device.peakBytes);
        mark.label =
            tr("%1 peak %2 at %3 ms")
                .arg(name,
                     QString::fromStdString(formatBytes(std::uint64_t(std::max<std::int64_t>(0, device.peakBytes)))))
                .arg(mark.timeMs, 0, 'f', 2);
        auto *tracer = new QCPItemTracer(m_plot);
        // Placed by coordinates, not on the graph: several events can share the peak's time.
        tracer->position->setCoords(mark.timeMs, mark.bytes / m_bytesPerUnit);
        tracer->setStyle(QCPItemTracer::tsCircle);
        tracer->setSize(9);
        tracer->setPen(QPen(color, 2));
        tracer->setBrush(Qt::white);
        auto *text = new QCPItemText(m_plot);
        text->position->setParentAnchor(tracer->position);
        text->position->setCoords(0, -8 - 18.0 * double(i)); // pixels above the marker
        // Labels grow away from the nearer edge, so none runs off the plot.
        const bool right = mark.timeMs > first + span * 0.6;
        const bool left = mark.timeMs < first + span * 0.25;
        text->setPositionAlignment(Qt::AlignBottom | (right  ? Qt::AlignRight
                                                      : left ? Qt::AlignLeft
                                                             : Qt::AlignHCenter));
        text->setText(mark.label);
        text->setColor(color.darker(120));
        text->setFont(QFont(font().family(), font().pointSize(), QFont::Bold));
        text->setBrush(QColor(255, 255, 255, 210));
        text->setPadding(QMargins(3, 1, 3, 1));
        text->setClipToAxisRect(false);
        m_peaks.push_back(mark);
    }
    m_plot->xAxis->setRange(first - span * 0.02, last + span * 0.02);
    m_plot->yAxis->setRange(0, double(highest) / m_bytesPerUnit * 1.25 + 1e-9);
    m_plot->replot();
}

} // namespace pyrometer::ui::plots
