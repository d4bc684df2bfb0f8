#include "ui/plots/kerneltypeplot.h"

#include "core/util/format.h"
#include "ui/plots/plotframe.h"

#include <qcustomplot.h>

#include <QLocale>

namespace pyrometer::ui::plots {

using analysis::KernelType;

QColor KernelTypePlot::typeColor(KernelType type)
{
    // Computation in greens and blues, communication orange, memory blue-grey, as the
    // Distributed page colours compute and communication.
    switch (type) {
    case KernelType::Communication: return QColor(0xe6, 0x55, 0x0d);
    case KernelType::Memory: return QColor(0x61, 0x7e, 0x9e);
    case KernelType::Gemm: return QColor(0x2e, 0x7d, 0x32);
    case KernelType::Convolution: return QColor(0x55, 0x8b, 0x2f);
    case KernelType::Attention: return QColor(0x00, 0x83, 0x8f);
    case KernelType::Normalization: return QColor(0x7e, 0x57, 0xc2);
    case KernelType::Reduction: return QColor(0x8d, 0x6e, 0x63);
    case KernelType::Elementwise: return QColor(0xf9, 0xa8, 0x25);
    case KernelType::Triton: return QColor(0xc2, 0x18, 0x5b);
    case KernelType::Other: return QColor(0x9e, 0x9e, 0x9e);
    }
    return Qt::gray;
}

KernelTypePlot::KernelTypePlot(QWidget *parent) : QWidget(parent), m_plot(createPlot(this, 160))
{
    m_plot->xAxis->setLabel(tr("GPU time (ms)"));
    m_plot->yAxis->grid()->setVisible(false);
    m_plot->legend->setVisible(false);
}

QString KernelTypePlot::barLabel(int bar) const
{
    if (bar < 0 || bar >= barCount())
        return {};
    const auto &row = m_breakdown.rows[std::size_t(bar)];
    return tr("%1  %2  %3%  (%4)")
        .arg(QString::fromUtf8(analysis::kernelTypeLabel(row.type).data()),
             QString::fromStdString(formatDuration(row.totalNs)))
        .arg(row.percent, 0, 'f', row.percent < 10 ? 1 : 0)
        .arg(QLocale().toString(qulonglong(row.calls)));
}

void KernelTypePlot::setBreakdown(const analysis::KernelTypeBreakdown &breakdown)
{
    m_breakdown = breakdown;
    m_plot->clearPlottables();
    m_plot->clearItems();
    const int n = barCount();
    // One layer per bar, for its colour; the longest at the top.
    double longest = 0;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < n; ++i) {
        const auto &row = m_breakdown.rows[std::size_t(i)];
        const double key = double(n - 1 - i);
        auto *bars = new QCPBars(m_plot->yAxis, m_plot->xAxis);
        bars->setWidth(0.7);
        bars->setAntialiased(false);
        bars->setPen(Qt::NoPen);
        bars->setBrush(typeColor(row.type));
        bars->addData(key, double(row.totalNs) / 1e6);
        longest = std::max(longest, double(row.totalNs) / 1e6);
        ticker->addTick(key, QString());
        auto *label = new QCPItemText(m_plot);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->position->setCoords(double(row.totalNs) / 1e6, key);
        label->setPadding(QMargins(6, 0, 0, 0));
        label->setText(barLabel(i));
        label->setClipToAxisRect(false);
    }
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setTickLabels(false);
    m_plot->yAxis->setRange(-0.6, double(std::max(n, 1)) - 0.4);
    // Room on the right for the longest bar's label.
    m_plot->xAxis->setRange(0, longest > 0 ? longest * 1.9 : 1);
    m_plot->setMinimumHeight(std::max(120, 28 * n + 50));
    m_plot->replot();
}

} // namespace pyrometer::ui::plots
