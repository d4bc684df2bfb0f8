#include "ui/distributed/stepheatmap.h"

#include "core/util/format.h"
#include "ui/distributed/rankbars.h"
#include "ui/plots/plotframe.h"
#include "ui/workspace/jobload.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <limits>
#include <utility>

namespace pyrometer::ui::distributed {

namespace {

constexpr int kMaxAxisLabels = 16;

QString measureText(analysis::StepMeasure measure)
{
    return QString::fromUtf8(analysis::stepMeasureName(measure).data());
}

// Viridis: ordered in lightness, readable for the colour-blind, and neither end is the paper.
QCPColorGradient viridis()
{
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
    gradient.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
    gradient.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
    gradient.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
    gradient.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    return gradient;
}

} // namespace

StepHeatMap::StepHeatMap(QWidget *parent)
    : QWidget(parent), m_plot(plots::createPlot(this, 220)), m_chooser(new QComboBox(this))
{
    auto *row = new QHBoxLayout;
    auto *label = new QLabel(tr("Colour by"), this);
    label->setBuddy(m_chooser);
    row->addWidget(label);
    for (const auto measure : analysis::kStepMeasures)
        m_chooser->addItem(measureText(measure), int(measure));
    m_chooser->setToolTip(tr("What each cell shows of the rank's step. Ranks of a synchronous job end their steps "
                             "together: compute, exposed communication and wait show which one holds the others "
                             "back. A job opens on the one that differs most across its ranks."));
    row->addWidget(m_chooser);
    row->addStretch(1);
    static_cast<QVBoxLayout *>(layout())->insertLayout(0, row);
    connect(m_chooser, &QComboBox::activated, this,
            [this](int item) { setMeasure(analysis::StepMeasure(m_chooser->itemData(item).toInt())); });

    m_plot->legend->setVisible(false);
    m_plot->plotLayout()->take(m_plot->legend);
    m_plot->plotLayout()->simplify();
    m_plot->xAxis->setLabel(tr("ProfilerStep"));
    m_plot->yAxis->setLabel(tr("rank"));
    m_plot->yAxis->setRangeReversed(true); // rank 0 on top, as in the tables
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->yAxis->grid()->setVisible(false);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(14);
    m_map->setColorScale(m_scale);
    m_map->setGradient(viridis());
    // The scale as tall as the map.
    auto *margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &StepHeatMap::showTip);
    connect(m_plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent *event) {
        std::size_t rank = 0, step = 0;
        if (event->button() == Qt::LeftButton && cellAt(event->position(), &rank, &step))
            Q_EMIT cellActivated(rank, step);
    });
}

void StepHeatMap::setJob(std::shared_ptr<const analysis::JobFigures> job)
{
    m_job = std::move(job);
    const std::size_t ranks = m_job ? m_job->ranks.size() : 0;
    m_steps = 0;
    for (std::size_t r = 0; r < ranks; ++r)
        m_steps = std::max(m_steps, m_job->ranks[r].steps.size());
    const int keys = int(std::max<std::size_t>(1, m_steps));
    const int values = int(std::max<std::size_t>(1, ranks));
    // Cell centres on whole numbers: step s at x = s, job.ranks[r] at y = r. QCustomPlot draws
    // a dimension of one cell with no width, so a single step or rank is two equal cells.
    const auto dimension = [](int cells) { return cells == 1 ? std::pair(2, QCPRange(-0.25, 0.25)) : std::pair(cells, QCPRange(0, cells - 1)); };
    const auto [keyCells, keyRange] = dimension(keys);
    const auto [valueCells, valueRange] = dimension(values);
    m_map->data()->setSize(keyCells, valueCells);
    m_map->data()->setRange(keyRange, valueRange);

    auto rankTicks = QSharedPointer<QCPAxisTickerText>::create();
    const int rankStep = niceTickStep(ranks, kMaxAxisLabels);
    for (std::size_t r = 0; r < ranks; r += std::size_t(rankStep))
        rankTicks->addTick(double(r), QString::number(m_job->ranks[r].rank));
    m_plot->yAxis->setTicker(rankTicks);
    auto stepTicks = QSharedPointer<QCPAxisTickerText>::create();
    const int stepStep = niceTickStep(m_steps, kMaxAxisLabels);
    for (std::size_t s = 0; s < m_steps; s += std::size_t(stepStep))
        stepTicks->addTick(double(s), stepLabel(s));
    m_plot->xAxis->setTicker(stepTicks);
    m_plot->xAxis->setRange(-0.5, keys - 0.5);
    m_plot->yAxis->setRange(-0.5, values - 0.5);
    setMeasure(m_job ? analysis::mostVaryingMeasure(*m_job) : analysis::StepMeasure::StepTime);
}

void StepHeatMap::setMeasure(analysis::StepMeasure measure)
{
    m_measure = measure;
    m_chooser->setCurrentIndex(m_chooser->findData(int(measure)));
    m_scale->axis()->setLabel(tr("%1 (ms)").arg(measureText(measure)));
    fillCells();
}

void StepHeatMap::fillCells()
{
    const std::size_t ranks = m_job ? m_job->ranks.size() : 0;
    const int keys = m_map->data()->keySize();
    const int values = m_map->data()->valueSize();
    m_map->data()->fill(std::numeric_limits<double>::quiet_NaN());
    for (std::size_t r = 0; r < ranks; ++r) {
        for (std::size_t s = 0; s < m_job->ranks[r].steps.size(); ++s) {
            const auto ns = analysis::stepMeasureNs(*m_job, r, s, m_measure);
            if (!ns)
                continue;
            // A single step or rank is drawn as two cells (see setJob).
            for (int k = int(s); k < (m_steps <= 1 ? keys : int(s) + 1); ++k)
                for (int v = int(r); v < (ranks <= 1 ? values : int(r) + 1); ++v)
                    m_map->data()->setCell(k, v, double(*ns) / kNsPerMs);
        }
    }
    m_map->rescaleDataRange(true);
    // A job whose cells all hold the same value still needs a scale with a span.
    if (m_map->dataRange().size() <= 0) {
        const double at = m_map->dataRange().lower;
        m_map->setDataRange(QCPRange(at * 0.95, at * 1.05 + 1e-6));
    }
    m_plot->replot();
}

QString StepHeatMap::stepLabel(std::size_t step) const
{
    // The number of the first rank's step in this column: the ranks' steps are the same steps.
    for (std::size_t r = 0; m_job && r < m_job->ranks.size(); ++r) {
        if (step < m_job->ranks[r].steps.size()) {
            if (const int number = analysis::profilerStepNumber(m_job->ranks[r].steps[step].name); number >= 0)
                return QString::number(number);
            break;
        }
    }
    return QString::number(step);
}

int StepHeatMap::stepCount() const
{
    return int(m_steps);
}

int StepHeatMap::rankCount() const
{
    return m_job ? int(m_job->ranks.size()) : 0;
}

double StepHeatMap::cellMs(std::size_t rankIndex, std::size_t step) const
{
    if (int(rankIndex) >= rankCount() || int(step) >= stepCount())
        return std::numeric_limits<double>::quiet_NaN();
    return m_map->data()->cell(int(step), int(rankIndex));
}

QPoint StepHeatMap::cellCenter(std::size_t rankIndex, std::size_t step) const
{
    return QPointF(m_plot->xAxis->coordToPixel(double(step)), m_plot->yAxis->coordToPixel(double(rankIndex))).toPoint();
}

bool StepHeatMap::cellAt(const QPointF &position, std::size_t *rankIndex, std::size_t *step) const
{
    if (!m_job || !m_plot->axisRect()->rect().contains(position.toPoint()))
        return false;
    const long s = std::lround(m_plot->xAxis->pixelToCoord(position.x()));
    const long r = std::lround(m_plot->yAxis->pixelToCoord(position.y()));
    if (r < 0 || r >= long(m_job->ranks.size()) || s < 0 || s >= long(m_job->ranks[std::size_t(r)].steps.size()))
        return false;
    *rankIndex = std::size_t(r);
    *step = std::size_t(s);
    return true;
}

QString StepHeatMap::cellText(std::size_t rankIndex, std::size_t step) const
{
    if (!m_job || rankIndex >= m_job->ranks.size() || step >= m_job->ranks[rankIndex].steps.size())
        return {};
    const auto &rank = m_job->ranks[rankIndex];
    QString text = tr("<b>%1</b>, %2").arg(rankLabel(rank).toHtmlEscaped(),
                                          QString::fromStdString(rank.steps[step].name).toHtmlEscaped());
    // Every measure, the one the colour shows in bold.
    for (const auto measure : analysis::kStepMeasures) {
        const auto ns = analysis::stepMeasureNs(*m_job, rankIndex, step, measure);
        QString line = tr("%1 %2").arg(measureText(measure),
                                       ns ? tr("%1 ms").arg(double(*ns) / kNsPerMs, 0, 'f', 3) : tr("unknown"));
        if (measure == m_measure)
            line = QStringLiteral("<b>") + line + QStringLiteral("</b>");
        text += QStringLiteral("<br>") + line;
    }
    return text + tr("<br><i>Click to show it in the Timeline</i>");
}

void StepHeatMap::showTip(QMouseEvent *event)
{
    std::size_t rank = 0, step = 0;
    if (!cellAt(event->position(), &rank, &step)) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), cellText(rank, step), m_plot);
}

} // namespace pyrometer::ui::distributed
