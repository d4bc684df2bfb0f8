#include "ui/plots/sweepplots.h"

#include "core/util/format.h"
#include "ui/plots/plotframe.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QSvgGenerator>
#include <QToolTip>

#include <cmath>

namespace pyrometer::ui {

using plots::followPalette;
using plots::printPalette;
using plots::stylePlot;

namespace {

double chartValue(SweepPlots::Chart chart, const model::SweepPoint &point)
{
    switch (chart) {
    case SweepPlots::Latency: return point.latency.mean;
    case SweepPlots::Throughput: return point.throughputPerSecond;
    case SweepPlots::Memory: return double(point.peakMemoryBytes) / kMiB;
    case SweepPlots::ChartCount: break;
    }
    return 0;
}

QString valueText(SweepPlots::Chart chart, double value)
{
    switch (chart) {
    case SweepPlots::Latency: return QObject::tr("%1 ms").arg(value, 0, 'f', 3);
    case SweepPlots::Throughput: return QObject::tr("%1 samples/s").arg(value, 0, 'f', 1);
    case SweepPlots::Memory: return QString::fromStdString(formatBytes(std::uint64_t(std::max(0.0, value * kMiB))));
    case SweepPlots::ChartCount: break;
    }
    return {};
}

} // namespace

QColor sweepColor(int index)
{
    static const QColor colors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c),
                                    QColor(0xff, 0x7f, 0x0e), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                    QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f)};
    return colors[index % int(std::size(colors))];
}

SweepPlots::SweepPlots(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    const QString titles[] = {tr("Latency per batch"), tr("Throughput"), tr("Peak memory")};
    const QString units[] = {tr("latency (ms)"), tr("throughput (samples/s)"), tr("peak memory (MiB)")};
    for (int chart = 0; chart < ChartCount; ++chart) {
        auto *plot = new QCustomPlot(this);
        m_plots[chart] = plot;
        plot->setMinimumSize(180, 200);
        plot->plotLayout()->insertRow(0);
        auto *title = new QCPTextElement(plot, titles[chart], QFont(font().family(), font().pointSize() + 1, QFont::Bold));
        plot->plotLayout()->addElement(0, 0, title);
        plot->xAxis->setLabel(tr("batch size (log2)"));
        plot->yAxis->setLabel(units[chart]);
        plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
        ticker->setLogBase(2);
        ticker->setSubTickCount(0);
        plot->xAxis->setTicker(ticker);
        plot->xAxis->setNumberFormat("f");
        plot->xAxis->setNumberPrecision(0);
        plot->legend->setVisible(chart == Latency);
        plot->legend->setFont(QFont(font().family(), font().pointSize() - 1));
        plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
        plot->setMouseTracking(true);
        connect(plot, &QCustomPlot::mouseMove, this, [this, chart, plot](QMouseEvent *event) {
            const QPoint at = event->position().toPoint();
            const QString text = hoverText(Chart(chart), at);
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(plot->mapToGlobal(at), text, plot);
        });
        followPalette(plot);
        layout->addWidget(plot, 1);
    }
    clear();
}

void SweepPlots::clear()
{
    m_variants.clear();
    for (auto *plot : m_plots) {
        plot->clearGraphs();
        plot->clearItems();
        plot->xAxis->setRange(0.7, 12);
        plot->yAxis->setRange(0, 1);
        plot->replot();
    }
    m_budget = 0;
    m_memoryUnmeasured = false;
}

QColor SweepPlots::colorOf(int variantIndex) const
{
    return sweepColor(variantIndex);
}

QCPGraph *SweepPlots::graph(Chart chart, const QString &variant) const
{
    const auto found = m_variants.find(variant);
    if (found == m_variants.end() || found->second >= m_plots[chart]->graphCount())
        return nullptr;
    return m_plots[chart]->graph(found->second);
}

void SweepPlots::addPoint(const model::SweepPoint &point)
{
    const QString name = QString::fromStdString(point.variant);
    if (!m_variants.count(name)) {
        const int index = int(m_variants.size());
        m_variants[name] = index;
        for (auto *plot : m_plots) {
            auto *graph = plot->addGraph();
            graph->setName(name);
            graph->setPen(QPen(colorOf(index), 2));
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colorOf(index), Qt::white, 7));
        }
    }
    for (int chart = 0; chart < ChartCount; ++chart) {
        if (chart == Memory && !point.memoryMeasured()) {
            m_memoryUnmeasured = true; // no point drawn at 0 as if measured
            continue;
        }
        graph(Chart(chart), name)->addData(double(point.batch), chartValue(Chart(chart), point));
    }
    rescale();
}

void SweepPlots::setBudget(std::int64_t bytes)
{
    m_budget = bytes;
    rescale();
}

void SweepPlots::setSummaries(const std::vector<model::SweepSummary> &summaries)
{
    auto *plot = m_plots[Throughput];
    plot->clearItems();
    int row = 0;
    for (const auto &summary : summaries) {
        const auto found = m_variants.find(QString::fromStdString(summary.variant));
        if (!summary.knee || found == m_variants.end())
            continue;
        const QColor color = colorOf(found->second);
        auto *marker = new QCPItemTracer(plot);
        marker->setGraph(plot->graph(found->second));
        marker->setGraphKey(double(summary.knee->batch));
        marker->setStyle(QCPItemTracer::tsSquare);
        marker->setSize(13);
        marker->setPen(QPen(color, 2));
        marker->setBrush(Qt::NoBrush);
        auto *label = new QCPItemText(plot);
        // Top left: a throughput curve rises to the right, so small batches leave that corner free.
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->position->setType(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0.03, 0.02 + 0.07 * row++);
        label->setText(tr("%1: knee at batch %2").arg(QString::fromStdString(summary.variant)).arg(summary.knee->batch));
        label->setColor(color);
    }
    rescale();
}

void SweepPlots::rescale()
{
    double lowBatch = 1;
    double highBatch = 2;
    bool any = false;
    for (auto *plot : m_plots) {
        double high = 0;
        for (int g = 0; g < plot->graphCount(); ++g) {
            for (auto it = plot->graph(g)->data()->constBegin(); it != plot->graph(g)->data()->constEnd(); ++it) {
                lowBatch = any ? std::min(lowBatch, it->key) : it->key;
                highBatch = any ? std::max(highBatch, it->key) : std::max(it->key, 2.0);
                any = true;
                high = std::max(high, it->value);
            }
        }
        if (plot == m_plots[Memory] && m_budget > 0)
            high = std::max(high, double(m_budget) / kMiB);
        // Headroom above the curves: the knee labels sit there on the throughput chart.
        const double headroom = plot == m_plots[Throughput] ? 1.15 + 0.1 * double(m_variants.size()) : 1.15;
        plot->yAxis->setRange(0, high > 0 ? high * headroom : 1);
    }
    // Half a doubling of margin on each side keeps the end markers inside.
    for (auto *plot : m_plots)
        plot->xAxis->setRange(lowBatch / 1.41, highBatch * 1.41);

    auto *memory = m_plots[Memory];
    for (int i = memory->itemCount() - 1; i >= 0; --i)
        memory->removeItem(i);
    if (m_budget > 0) {
        const double y = double(m_budget) / kMiB;
        auto *line = new QCPItemStraightLine(memory);
        line->point1->setCoords(1, y);
        line->point2->setCoords(2, y);
        line->setPen(QPen(QColor(0xc0, 0x39, 0x2b), 1.5, Qt::DashLine));
        auto *label = new QCPItemText(memory);
        label->position->setType(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0.03, 0.02);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setText(tr("budget %1").arg(QString::fromStdString(formatBytes(std::uint64_t(m_budget)))));
        label->setColor(QColor(0xc0, 0x39, 0x2b));
    }
    if (m_memoryUnmeasured) {
        auto *label = new QCPItemText(memory);
        label->position->setType(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0.5, 0.5);
        label->setPositionAlignment(Qt::AlignCenter);
        label->setText(tr("not measured:\nthe Python engine reads\npeak memory on CUDA only"));
        label->setColor(memory->xAxis->labelColor());
    }
    for (auto *plot : m_plots)
        plot->replot();
}

QString SweepPlots::hoverText(Chart chart, const QPoint &pos) const
{
    const auto *plot = m_plots[chart];
    double best = 12; // pixels
    QString text;
    for (const auto &[name, index] : m_variants) {
        if (index >= plot->graphCount())
            continue;
        const auto *graph = plot->graph(index);
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
            const double dx = plot->xAxis->coordToPixel(it->key) - pos.x();
            const double dy = plot->yAxis->coordToPixel(it->value) - pos.y();
            const double distance = std::hypot(dx, dy);
            if (distance < best) {
                best = distance;
                text = tr("%1, batch %2: %3").arg(name).arg(qint64(it->key)).arg(valueText(chart, it->value));
            }
        }
    }
    return text;
}

void SweepPlots::paint(QCPPainter &painter, int width, int height) const
{
    // Files are read on white pages, whatever the theme the window is in.
    for (int chart = 0; chart < ChartCount; ++chart) {
        stylePlot(m_plots[chart], printPalette());
        painter.save();
        painter.translate(chart * width / ChartCount, 0);
        m_plots[chart]->toPainter(&painter, width / ChartCount, height);
        painter.restore();
        m_plots[chart]->replot(QCustomPlot::rpQueuedReplot); // back to the theme
    }
}

bool SweepPlots::savePng(const QString &path, int width, int height) const
{
    QPixmap pixmap(width, height);
    pixmap.fill(Qt::white);
    {
        QCPPainter painter(&pixmap);
        paint(painter, width, height);
    }
    return pixmap.save(path, "PNG");
}

bool SweepPlots::saveSvg(const QString &path, int width, int height) const
{
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(QSize(width, height));
    generator.setViewBox(QRect(0, 0, width, height));
    generator.setTitle(tr("Batch-size sweep"));
    QCPPainter painter;
    if (!painter.begin(&generator))
        return false;
    paint(painter, width, height);
    return painter.end();
}

} // namespace pyrometer::ui
