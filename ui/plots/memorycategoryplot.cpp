#include "ui/plots/memorycategoryplot.h"

#include "core/util/format.h"
#include "ui/plots/plotframe.h"

#include <qcustomplot.h>

namespace pyrometer::ui::plots {

namespace {


using record::MemoryCategory;

} // namespace

const std::vector<MemoryCategory> &MemoryCategoryPlot::stackOrder()
{
    static const std::vector<MemoryCategory> order{MemoryCategory::Parameters,     MemoryCategory::Gradients,
                                                   MemoryCategory::OptimizerState, MemoryCategory::Inputs,
                                                   MemoryCategory::Activations,    MemoryCategory::Temporaries,
                                                   MemoryCategory::Other};
    return order;
}

QColor MemoryCategoryPlot::categoryColor(MemoryCategory category)
{
    switch (category) {
    case MemoryCategory::Parameters: return QColor(0x15, 0x65, 0xc0);
    case MemoryCategory::Gradients: return QColor(0x00, 0x83, 0x8f);
    case MemoryCategory::OptimizerState: return QColor(0x2e, 0x7d, 0x32);
    case MemoryCategory::Inputs: return QColor(0x8e, 0x24, 0xaa);
    case MemoryCategory::Activations: return QColor(0xef, 0x6c, 0x00);
    case MemoryCategory::Temporaries: return QColor(0xc6, 0x28, 0x28);
    case MemoryCategory::Other: return QColor(0x75, 0x75, 0x75);
    }
    return Qt::gray;
}

MemoryCategoryPlot::MemoryCategoryPlot(QWidget *parent) : QWidget(parent), m_plot(createPlot(this, 240))
{
    m_plot->xAxis->setLabel(tr("time since the program started (s)"));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
}

void MemoryCategoryPlot::setCategories(const record::MemoryCategories &categories, const record::MemoryPeak &peak)
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    const auto &samples = categories.samples;
    std::int64_t highest = 0;
    for (const auto &sample : samples)
        highest = std::max(highest, sample.total());
    m_bytesPerUnit = highest >= 4 * kGiB ? kGiB : highest >= 4 * kMiB ? kMiB : kKiB;
    m_plot->yAxis->setLabel(m_bytesPerUnit == kGiB   ? tr("memory (GiB)")
                            : m_bytesPerUnit == kMiB ? tr("memory (MiB)")
                                                     : tr("memory (KiB)"));
    QVector<double> keys;
    keys.reserve(qsizetype(samples.size()));
    for (const auto &sample : samples)
        keys << sample.seconds;
    QVector<double> running(qsizetype(samples.size()), 0.0);
    QCPGraph *below = nullptr;
    for (const auto category : stackOrder()) {
        for (qsizetype i = 0; i < running.size(); ++i)
            running[i] += double(samples[std::size_t(i)].bytes[std::size_t(category)]) / m_bytesPerUnit;
        auto *graph = m_plot->addGraph();
        graph->setName(QString::fromUtf8(record::memoryCategoryLabel(category).data(),
                                         qsizetype(record::memoryCategoryLabel(category).size())));
        const auto color = categoryColor(category);
        graph->setPen(QPen(color.darker(115), 1));
        auto fillColor = color;
        fillColor.setAlpha(170);
        graph->setBrush(fillColor);
        if (below)
            graph->setChannelFillGraph(below);
        graph->setData(keys, running, true);
        below = graph;
    }
    // Recorded steps: a light band behind the areas.
    double recordedFrom = -1;
    const auto band = [&](double from, double to) {
        auto *rect = new QCPItemRect(m_plot);
        rect->topLeft->setTypeX(QCPItemPosition::ptPlotCoords);
        rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
        rect->bottomRight->setTypeX(QCPItemPosition::ptPlotCoords);
        rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
        rect->topLeft->setCoords(from, 0);
        rect->bottomRight->setCoords(to, 1);
        rect->setPen(Qt::NoPen);
        rect->setBrush(QColor(0xff, 0xc1, 0x07, 40));
        rect->setLayer(QStringLiteral("background"));
    };
    for (std::size_t i = 0; i < samples.size(); ++i) {
        if (samples[i].recorded && recordedFrom < 0)
            recordedFrom = samples[i].seconds;
        const bool ends = recordedFrom >= 0 && (!samples[i].recorded || i + 1 == samples.size());
        if (ends) {
            band(recordedFrom, samples[i].seconds);
            recordedFrom = -1;
        }
    }
    double first = samples.empty() ? 0 : samples.front().seconds;
    double last = samples.empty() ? 1 : samples.back().seconds;
    const double span = std::max(last - first, 1e-3);
    if (peak.found()) {
        auto *line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(peak.sample.seconds, 0);
        line->point2->setCoords(peak.sample.seconds, 1);
        line->setPen(QPen(QColor(0xc6, 0x28, 0x28), 1.5, Qt::DashLine));
        auto *text = new QCPItemText(m_plot);
        text->position->setCoords(peak.sample.seconds, double(peak.sample.total()) / m_bytesPerUnit);
        const bool right = peak.sample.seconds > first + span * 0.6;
        text->setPositionAlignment(Qt::AlignBottom | (right ? Qt::AlignRight : Qt::AlignLeft));
        text->setText(tr("peak %1 (%2)")
                          .arg(QString::fromStdString(formatBytes(std::uint64_t(peak.sample.total()))),
                               QString::fromStdString(record::memorySamplePlace(peak.sample))));
        text->setColor(QColor(0xc6, 0x28, 0x28).darker(120));
        text->setFont(QFont(font().family(), font().pointSize(), QFont::Bold));
        text->setBrush(QColor(255, 255, 255, 210));
        text->setPadding(QMargins(3, 1, 3, 1));
        text->setClipToAxisRect(false);
    }
    m_plot->legend->setVisible(true);
    m_plot->xAxis->setRange(first - span * 0.02, last + span * 0.02);
    m_plot->yAxis->setRange(0, double(highest) / m_bytesPerUnit * 1.2 + 1e-9);
    m_plot->replot();
}

QString peakCompositionHtml(const record::MemorySample &peak)
{
    const auto total = peak.total();
    std::vector<std::pair<std::int64_t, record::MemoryCategory>> parts;
    for (std::size_t i = 0; i < record::kMemoryCategoryCount; ++i)
        if (peak.bytes[i] > 0)
            parts.emplace_back(peak.bytes[i], record::MemoryCategory(i));
    std::sort(parts.begin(), parts.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    QStringList shares;
    for (const auto &[bytes, category] : parts) {
        const auto label = record::memoryCategoryLabel(category);
        shares << QObject::tr("<span style=\"color:%1\">\u25a0</span> %2 %3 (%4%)")
                      .arg(MemoryCategoryPlot::categoryColor(category).name(),
                           QString::fromUtf8(label.data(), qsizetype(label.size())),
                           QString::fromStdString(formatBytes(std::uint64_t(bytes))))
                      .arg(total > 0 ? 100.0 * double(bytes) / double(total) : 0.0, 0, 'f', 0);
    }
    return shares.join(QStringLiteral(", "));
}

} // namespace pyrometer::ui::plots
