#include "ui/plots/stepbreakdownplot.h"

#include "core/analysis/stepcolors.h"
#include "core/util/format.h"
#include "ui/plots/plotframe.h"

#include <qcustomplot.h>

#include <QToolTip>

#include <cmath>

namespace pyrometer::ui::plots {

using analysis::StepCategory;

namespace {

// "ProfilerStep#12" -> "#12": the axis has room for short labels only.
QString shortStepName(const std::string &name)
{
    const auto text = QString::fromStdString(name);
    const auto hash = text.lastIndexOf(QLatin1Char('#'));
    return hash >= 0 ? text.mid(hash) : text;
}

} // namespace

QColor StepBreakdownPlot::categoryColor(StepCategory category)
{
    return QColor(QRgb(analysis::stepCategoryColor(category)));
}

QString StepBreakdownPlot::categoryLabel(StepCategory category)
{
    switch (category) {
    case StepCategory::Kernel: return tr("Kernel");
    case StepCategory::Memcpy: return tr("Memcpy");
    case StepCategory::Memset: return tr("Memset");
    case StepCategory::Runtime: return tr("Runtime");
    case StepCategory::DataLoader: return tr("DataLoader");
    case StepCategory::CpuExec: return tr("CPU exec");
    case StepCategory::Other: return tr("Other");
    }
    return {};
}

StepBreakdownPlot::StepBreakdownPlot(QWidget *parent) : QWidget(parent), m_plot(createPlot(this, 240))
{
    m_plot->yAxis->setLabel(tr("time (ms)"));
    m_plot->xAxis->setLabel(tr("step"));
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &StepBreakdownPlot::showTip);
}

void StepBreakdownPlot::setSteps(const std::vector<analysis::StepRow> &steps)
{
    m_steps = steps;
    m_plot->clearPlottables();
    m_layers.clear();
    QCPBars *below = nullptr;
    double highest = 0;
    for (const auto &step : m_steps)
        highest = std::max(highest, double(step.durationNs) / kNsPerMs);
    for (std::size_t c = 0; c < analysis::kStepCategoryCount; ++c) {
        const auto category = StepCategory(c);
        QVector<double> keys, values;
        bool any = false;
        for (std::size_t s = 0; s < m_steps.size(); ++s) {
            keys << double(s);
            values << double(m_steps[s].ns(category)) / kNsPerMs;
            any = any || m_steps[s].ns(category) > 0;
        }
        if (!any)
            continue;
        auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(categoryLabel(category));
        bars->setWidth(m_steps.size() == 1 ? 0.4 : 0.7);
        bars->setPen(Qt::NoPen);
        bars->setBrush(categoryColor(category));
        bars->setData(keys, values, true);
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_layers.push_back(bars);
    }

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    // At most ~20 labels: every k-th step.
    const std::size_t every = std::max<std::size_t>(1, (m_steps.size() + 19) / 20);
    for (std::size_t s = 0; s < m_steps.size(); s += every)
        ticker->addTick(double(s), shortStepName(m_steps[s].name));
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.6, double(m_steps.size()) - 0.4);
    m_plot->yAxis->setRange(0, highest > 0 ? highest * 1.08 : 1);
    m_plot->replot();
}

QString StepBreakdownPlot::stepText(int step) const
{
    if (step < 0 || step >= int(m_steps.size()))
        return {};
    const auto &row = m_steps[std::size_t(step)];
    QString text = QStringLiteral("<b>%1</b>: %2 ms")
                       .arg(QString::fromStdString(row.name).toHtmlEscaped())
                       .arg(double(row.durationNs) / kNsPerMs, 0, 'f', 3);
    for (std::size_t c = 0; c < analysis::kStepCategoryCount; ++c) {
        const auto ns = row.categoryNs[c];
        if (ns == 0)
            continue;
        const double pct = row.durationNs > 0 ? 100.0 * double(ns) / double(row.durationNs) : 0.0;
        text += QStringLiteral("<br><span style='color:%1'>\u25a0</span> %2: %3 ms (%4%)")
                    .arg(categoryColor(StepCategory(c)).name(), categoryLabel(StepCategory(c)))
                    .arg(double(ns) / kNsPerMs, 0, 'f', 3)
                    .arg(pct, 0, 'f', 1);
    }
    if (row.gpuBusyNs > 0)
        text += tr("<br>GPU busy %1%").arg(100.0 * row.gpuUtilization, 0, 'f', 1);
    return text;
}

void StepBreakdownPlot::showTip(QMouseEvent *event)
{
    const double key = m_plot->xAxis->pixelToCoord(event->position().x());
    const int step = int(std::lround(key));
    if (step < 0 || step >= int(m_steps.size()) || std::abs(key - step) > 0.4) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), stepText(step), m_plot);
}

} // namespace pyrometer::ui::plots
