#include "ui/model/layerrooflineview.h"

#include "core/model/inputspec.h"
#include "ui/jobs/jobtracker.h"
#include "ui/model/profilerun.h"
#include "ui/plots/rooflineplot.h"
#include "ui/roofline/rooflinecells.h"
#include "ui/shell/displaytext.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletree.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include <set>

namespace pyrometer::ui {

using tables::ColumnKind;

namespace {

tables::TableTree layerTree(const engine::LayerRooflines &result)
{
    tables::TableTree tree;
    tree.columns = {{LayerRooflineView::tr("Layer"), ColumnKind::Text, QStringLiteral("layer")},
                    {LayerRooflineView::tr("Type"), ColumnKind::Text, QStringLiteral("type")},
                    {LayerRooflineView::tr("Batch"), ColumnKind::Count, QStringLiteral("batch")},
                    {LayerRooflineView::tr("Time"), ColumnKind::Duration, QStringLiteral("time_us")},
                    {LayerRooflineView::tr("GFLOP"), ColumnKind::Number, QStringLiteral("gflop")},
                    {LayerRooflineView::tr("MB moved"), ColumnKind::Number, QStringLiteral("mb")},
                    {LayerRooflineView::tr("FLOP/byte"), ColumnKind::Number, QStringLiteral("intensity")},
                    {LayerRooflineView::tr("GFLOP/s"), ColumnKind::Number, QStringLiteral("gflops")},
                    {LayerRooflineView::tr("% of roof"), ColumnKind::Number, QStringLiteral("pct_of_roof")},
                    {LayerRooflineView::tr("Bound"), ColumnKind::Text, QStringLiteral("bound")}};
    tree.defaultSortColumn = 3;
    for (const auto &[batch, roofline] : result.batches)
        for (const auto &row : roofline.rows)
            tree.addNode(-1,
                         {qs(row.name), qs(row.shape), quint64(batch), qint64(row.timeNs), roofline::figureCell(row.flops, 1e9),
                          roofline::figureCell(row.bytes, 1e6), roofline::figureCell(row.intensity, 1), roofline::figureCell(row.achievedFlops, 1e9),
                          roofline::figureCell(row.percentOfRoof, 1), qs(analysis::boundName(row.bound))});
    return tree;
}

} // namespace

LayerRooflineView::LayerRooflineView(JobTracker *jobs, QLineEdit *inputs, QWidget *parent)
    : QWidget(parent), m_jobs(jobs), m_inputs(inputs), m_cache(cpuRoofCacheFile()),
      m_batches(new QLineEdit(QStringLiteral("1,8,32"), this)), m_run(new QPushButton(tr("Run roofline"), this)),
      m_status(new QLabel(this)), m_summary(new QLabel(this)), m_plot(new plots::RooflinePlot(this)),
      m_table(new tables::TablePane(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Batch sizes:"), this));
    m_batches->setToolTip(tr("The batch sizes to profile each layer at; the inputs' first dimension is set to each"));
    m_batches->setMaximumWidth(160);
    bar->addWidget(m_batches);
    bar->addWidget(m_run);
    m_status->setWordWrap(true);
    bar->addWidget(m_status, 1);
    layout->addLayout(bar);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    layout->addWidget(m_summary);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_plot);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    m_summary->setText(emptyHint({}));
    m_run->setEnabled(false);
    connect(m_run, &QPushButton::clicked, this, &LayerRooflineView::run);
    connect(m_plot, &plots::RooflinePlot::pointClicked, this, [this](int point) {
        const auto &points = m_plot->points();
        if (point >= 0 && std::size_t(point) < points.size())
            m_table->setFilterText(points[std::size_t(point)].name.section(QLatin1Char(' '), 0, 0));
    });
}

void LayerRooflineView::setModel(const QString &path)
{
    m_path = path;
    ++m_serial;
    m_result.reset();
    m_plot->setData({}, {});
    m_table->setTree({});
    m_summary->setText(emptyHint(path));
    m_status->clear();
    m_run->setEnabled(!path.isEmpty());
}

QString LayerRooflineView::emptyHint(const QString &path)
{
    return path.isEmpty() ? tr("Open a model (File → Open model, Ctrl+M) to place its layers under a roof.")
                          : tr("Press <b>Run roofline</b> to profile each layer at these batch sizes and place it "
                               "under the roof of the engine's device (this CPU's, measured once, or the GPU's): "
                               "which layers are memory-bound, which compute-bound, and where that changes with "
                               "the batch.");
}

void LayerRooflineView::run()
{
    if (m_path.isEmpty())
        return;
    engine::LayerRooflineOptions options;
    for (const auto &part : m_batches->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const auto batch = part.trimmed().toLongLong(&ok);
        if (!ok || batch < 1) {
            m_status->setText(tr("Batch sizes: \"%1\" is not a list of whole numbers from 1, such as 1,8,32").arg(m_batches->text()));
            return;
        }
        options.batches.push_back(batch);
    }
    const QString spec = m_inputs ? m_inputs->text().trimmed() : QString();
    if (!spec.isEmpty()) {
        const auto inputs = model::parseInputSpecs(spec.toStdString(), model::BatchDim::Swept);
        if (!inputs.ok()) {
            m_status->setText(tr("Inputs \"%1\": %2").arg(spec, qs(inputs.error().message)));
            return;
        }
        options.run.inputs = inputs.value();
    }
    options.run.warmup = 2;
    options.run.iterations = 3;
    options.cpuRoofCache = m_cache;
    options.fallbackDevice = m_fallback;
    const quint64 serial = ++m_serial;
    m_run->setEnabled(false);
    m_status->setText(tr("Profiling each batch size… (the CPU's roof is measured once, a few seconds)"));
    m_summary->clear();
    const std::filesystem::path path = m_path.toStdString();
    const auto engine = m_engineSource ? m_engineSource() : engine::Engine{};
    const auto id = m_jobs->run<std::shared_ptr<const engine::LayerRooflines>>(
        tr("Roofline of the layers of %1").arg(QFileInfo(m_path).fileName()), QStringLiteral("model-page-roofline"),
        [path, engine, options](ProgressReporter &progress, const StopToken &stop) -> Result<std::shared_ptr<const engine::LayerRooflines>> {
            auto result = engine::runLayerRooflines(engine, path, options, progress, stop);
            if (!result.ok())
                return result.error();
            return std::make_shared<const engine::LayerRooflines>(std::move(result).value());
        },
        this, [this, serial](std::shared_ptr<const engine::LayerRooflines> result) {
            if (serial == m_serial)
                show(std::move(result));
        });
    // One connection per run, gone with its job: the button comes back however the job ended.
    auto *connection = new QMetaObject::Connection;
    *connection = connect(m_jobs, &JobTracker::finished, this,
                          [this, id, serial, connection](JobTracker::JobId finished, const QString &, JobOutcome outcome,
                                                         const QString &message) {
                              if (finished != id)
                                  return;
                              disconnect(*connection);
                              delete connection;
                              if (serial != m_serial)
                                  return;
                              m_run->setEnabled(true);
                              if (outcome != JobOutcome::Succeeded)
                                  m_status->setText(message.isEmpty() ? tr("Cancelled") : message);
                          });
}

void LayerRooflineView::show(std::shared_ptr<const engine::LayerRooflines> result)
{
    m_result = std::move(result);
    const auto &r = *m_result;
    std::vector<plots::RoofLine> roofs;
    if (r.device) {
        roofs.push_back({r.device->measured ? tr("FP32 GEMM (measured)") : tr("FP32"), r.device->vectorFlops, r.device->bandwidth});
        // Data a layer reuses from the cache is not bound by main memory's bandwidth.
        if (r.device->cacheBandwidth > 0)
            roofs.push_back(
                {tr("%1 (measured)").arg(qs(r.device->cacheName)), r.device->vectorFlops, r.device->cacheBandwidth});
        // The matrix roofs of the dtypes the layers ran in (BF16 and FP16 apart).
        std::set<analysis::Precision> precisions;
        for (const auto &batch : r.batches)
            for (const auto &row : batch.roofline.rows)
                if (row.roof && row.roof->peakFlops > r.device->vectorFlops &&
                    precisions.insert(row.roof->precision).second)
                    roofs.push_back({qs(analysis::precisionName(row.roof->precision)) + tr(" matrix"),
                                     row.roof->peakFlops, row.roof->bandwidth});
    }
    // The heaviest layers across the batches, one series each; at each batch the share of its time.
    const auto heavy = engine::heaviestLayers(r.batches, kTrajectories);
    std::vector<plots::RooflinePoint> points;
    for (std::size_t series = 0; series < heavy.size(); ++series) {
        for (const auto &[batch, roofline] : r.batches) {
            for (const auto &row : roofline.rows) {
                if (row.name != heavy[series] || row.intensity <= 0 || row.achievedFlops <= 0)
                    continue;
                const double share = roofline.totalNs > 0 ? double(row.timeNs) / double(roofline.totalNs) : 0;
                const QString roofText =
                    row.roof ? (row.cacheRoof ? tr("%1% of the cache's roof at this intensity (faster than "
                                                   "main memory: its data stayed in the cache); %2-bound")
                                              : tr("%1% of the roof at this intensity; %2-bound"))
                                   .arg(row.percentOfRoof, 0, 'f', 1)
                                   .arg(qs(analysis::boundName(row.bound)))
                             : tr("the roof is unknown");
                points.push_back({QStringLiteral("%1 (batch %2)").arg(qs(row.name)).arg(batch), row.intensity, row.achievedFlops,
                                  share, row.bound,
                                  tr("%1, %2 ms (%3% of the forward)<br>%4 GFLOP, %5 MB: %6 FLOP/byte<br>%7 GFLOP/s<br>%8")
                                      .arg(qs(row.shape))
                                      .arg(double(row.timeNs) / 1e6, 0, 'f', 3)
                                      .arg(100 * share, 0, 'f', 1)
                                      .arg(row.flops / 1e9, 0, 'g', 4)
                                      .arg(row.bytes / 1e6, 0, 'g', 4)
                                      .arg(row.intensity, 0, 'g', 3)
                                      .arg(row.achievedFlops / 1e9, 0, 'g', 4)
                                      .arg(roofText),
                                  int(series)});
            }
        }
    }
    m_plot->setData(std::move(roofs), std::move(points));
    m_table->setTree(layerTree(r));
    QStringList turns;
    for (const auto &turn : model::boundTurns(r.batches, heavy))
        turns << (turn.batch > 0 ? tr("%1 from batch %2").arg(qs(turn.layer).toHtmlEscaped()).arg(turn.batch)
                                 : tr("%1 never").arg(qs(turn.layer).toHtmlEscaped()));
    m_summary->setText(tr("Roof: <b>%1</b> (%2). Compute-bound: %3.")
                           .arg(r.device ? qs(r.device->name).toHtmlEscaped() : tr("unknown"),
                                r.device ? qs(r.device->source).toHtmlEscaped() : tr("no device figures"), turns.join(QStringLiteral("; "))));
    m_status->setText(tr("%1 batch sizes profiled; %2").arg(r.batches.size()).arg(qs(r.engine)));
    Q_EMIT rooflineShown();
}

} // namespace pyrometer::ui
