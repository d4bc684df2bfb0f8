#include "ui/distributed/rankbars.h"

#include "core/report/jobreport.h"
#include "core/util/format.h"
#include "ui/plots/plotframe.h"
#include "ui/workspace/jobload.h"

#include <qcustomplot.h>

#include <QToolTip>

#include <cmath>

namespace pyrometer::ui::distributed {

namespace {

constexpr int kMaxBarLabels = 24;

} // namespace

int niceTickStep(std::size_t count, int maxLabels)
{
    for (int scale = 1;; scale *= 10) {
        for (const int m : {1, 2, 5}) {
            if (count <= std::size_t(m * scale) * std::size_t(maxLabels))
                return m * scale;
        }
    }
}

std::array<std::int64_t, RankBars::kParts> rankParts(const analysis::RankFigures &rank)
{
    return {rank.computeOnlyNs, rank.hiddenCommunicationNs, rank.exposedCommunicationNs, rank.memoryOnlyNs, rank.idleNs};
}

RankBars::RankBars(QWidget *parent) : QWidget(parent), m_plot(plots::createPlot(this, 220))
{
    m_plot->xAxis->setLabel(tr("rank"));
    m_plot->xAxis->grid()->setVisible(false);
    QCPBars *below = nullptr;
    for (std::size_t p = 0; p < kParts; ++p) {
        auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(tr(report::kRankPartNames[p]));
        bars->setPen(Qt::NoPen);
        bars->setBrush(QColor(QString::fromLatin1(report::kRankPartColors[p])));
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_layers[p] = bars;
    }
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &RankBars::showTip);
}

int RankBars::barCount() const
{
    return m_layers[0]->data()->size();
}

void RankBars::setJob(std::shared_ptr<const analysis::JobFigures> job)
{
    m_job = std::move(job);
    m_plot->clearItems();
    const std::size_t count = m_job ? m_job->ranks.size() : 0;
    std::int64_t longest = 0;
    for (std::size_t i = 0; i < count; ++i)
        longest = std::max(longest, m_job->ranks[i].windowNs());
    // Seconds once windows pass 10 s: five-digit millisecond labels read badly.
    const bool seconds = longest > 10'000'000'000;
    const double unitNs = seconds ? 1e9 : kNsPerMs;
    m_plot->yAxis->setLabel(seconds ? tr("time in the window (s)") : tr("time in the window (ms)"));
    const double highest = double(longest) / unitNs;
    std::array<QVector<double>, kParts> values;
    QVector<double> keys;
    for (std::size_t i = 0; i < count; ++i) {
        keys << double(i);
        const auto parts = rankParts(m_job->ranks[i]);
        for (std::size_t p = 0; p < kParts; ++p)
            values[p] << double(parts[p]) / unitNs;
    }
    // Few ranks: bars with gaps between them; hundreds: bars that touch, each at least a line.
    const double width = count <= 2 ? 0.4 : count <= 64 ? 0.75 : 1.0;
    for (std::size_t p = 0; p < kParts; ++p) {
        m_layers[p]->setWidth(width);
        // Touching bars drawn smooth leave a pale seam between each two.
        m_layers[p]->setAntialiased(count <= 64);
        m_layers[p]->setData(keys, values[p], true);
    }

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    m_tickStep = niceTickStep(count, kMaxBarLabels);
    for (std::size_t i = 0; i < count; i += std::size_t(m_tickStep))
        ticker->addTick(double(i), QString::number(m_job->ranks[i].rank));
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(-0.6, std::max(1.0, double(count)) - 0.4);
    m_plot->yAxis->setRange(0, highest > 0 ? highest * 1.12 : 1);

    // The stragglers, named above their bars.
    if (m_job) {
        for (const auto &straggler : m_job->stragglers) {
            for (std::size_t i = 0; i < count; ++i) {
                if (m_job->ranks[i].rank != straggler.rank)
                    continue;
                auto *label = new QCPItemText(m_plot);
                label->position->setCoords(double(i), double(m_job->ranks[i].windowNs()) / unitNs);
                label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
                label->setText(tr("▼ %1").arg(rankLabel(m_job->ranks[i])));
                label->setColor(QColor(0xc6, 0x28, 0x28));
                label->setPadding(QMargins(2, 0, 2, 2));
            }
        }
    }
    m_plot->replot();
}

QString RankBars::rankText(int i) const
{
    if (!m_job || i < 0 || i >= int(m_job->ranks.size()))
        return {};
    const auto &rank = m_job->ranks[std::size_t(i)];
    const double window = double(rank.windowNs());
    QString text = QStringLiteral("<b>%1</b> (%2)<br>window %3 ms")
                       .arg(rankLabel(rank).toHtmlEscaped(),
                            QFileInfo(QString::fromStdString(rank.file)).fileName().toHtmlEscaped())
                       .arg(window / kNsPerMs, 0, 'f', 3);
    const auto parts = rankParts(rank);
    for (std::size_t p = 0; p < kParts; ++p) {
        text += QStringLiteral("<br><span style='color:%1'>\u25a0</span> %2: %3 ms (%4%)")
                    .arg(QString::fromLatin1(report::kRankPartColors[p]), tr(report::kRankPartNames[p]))
                    .arg(double(parts[p]) / kNsPerMs, 0, 'f', 3)
                    .arg(window > 0 ? 100.0 * double(parts[p]) / window : 0.0, 0, 'f', 1);
    }
    return text;
}

void RankBars::showTip(QMouseEvent *event)
{
    const double key = m_plot->xAxis->pixelToCoord(event->position().x());
    const int i = int(std::lround(key));
    if (!m_job || i < 0 || i >= int(m_job->ranks.size()) || std::abs(key - i) > 0.5) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), rankText(i), m_plot);
}

} // namespace pyrometer::ui::distributed
