#include "ui/model/sweepview.h"

#include "core/model/accuracy.h"
#include "ui/compare/comparetables.h"
#include "ui/model/modelstate.h"
#include "ui/plots/sweepplots.h"
#include "ui/shell/displaytext.h"
#include "ui/tables/sortheader.h"
#include "ui/tables/tableexport.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace pyrometer::ui {
namespace {

// "1,2,4,8" -> {1,2,4,8}; empty -> {} (the doubling range). False on anything else.
bool parseBatches(const QString &text, std::vector<std::int64_t> *batches)
{
    for (const auto &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const auto batch = part.trimmed().toLongLong(&ok);
        if (!ok || batch < 1)
            return false;
        batches->push_back(batch);
    }
    return true;
}

} // namespace

std::vector<SweepPointsModel::Column> sweepPointColumns()
{
    using P = model::SweepPoint;
    return {
        {QObject::tr("Variant"), [](const P &p) { return QString::fromStdString(p.variant); }, {}, false, {}},
        {QObject::tr("Batch"), [](const P &p) { return qint64(p.batch); }, {}, true, {}},
        {QObject::tr("Latency (ms)"), [](const P &p) { return QString::number(p.latency.mean, 'f', 3); },
         [](const P &p) { return p.latency.mean; }, true, QObject::tr("Mean latency of one run of the whole batch")},
        {QObject::tr("p90 (ms)"),
         [](const P &p) { return QString::number(p.latency.p90, 'f', 3); },
         [](const P &p) { return p.latency.p90; },
         true,
         {}},
        {QObject::tr("95% CI (ms)"),
         [](const P &p) {
             const auto ci = meanInterval(p.latency.sample());
             return ci ? QStringLiteral("%1–%2").arg(ci->low, 0, 'f', 3).arg(ci->high, 0, 'f', 3) : QString();
         },
         [](const P &p) {
             const auto ci = meanInterval(p.latency.sample());
             return ci ? QVariant(ci->high - ci->low) : QVariant();
         },
         true,
         QObject::tr("The 95% confidence interval of the mean latency from the point's timed runs: points whose "
                     "intervals overlap cannot be told apart")},
        {QObject::tr("Samples/s"),
         [](const P &p) { return QString::number(p.throughputPerSecond, 'f', 1); },
         [](const P &p) { return p.throughputPerSecond; },
         true,
         {}},
        {QObject::tr("mJ/inference"), [](const P &p) { return energyText(p.energyMjPerInference); },
         [](const P &p) { return optionalValue(p.energyMjPerInference); }, true,
         QObject::tr("Energy per inference (one sample) of the timed runs, above the machine's idle draw, from the "
                     "RAPL counters (package and DRAM)")},
        {QObject::tr("Inferences/J"),
         [](const P &p) { return energyText(model::inferencesPerJoule(p.energyMjPerInference), 1); },
         [](const P &p) { return optionalValue(model::inferencesPerJoule(p.energyMjPerInference)); },
         true,
         {}},
        {QObject::tr("Peak memory"),
         [](const P &p) { return p.memoryMeasured() ? bytesText(p.peakMemoryBytes) : QObject::tr("not measured"); },
         [](const P &p) { return qint64(p.peakMemoryBytes); }, true,
         QObject::tr("Weights (serialized size), inputs and the CPU allocator's highest use during the runs; on CUDA "
                     "torch's max_memory_allocated; not measured by the Python engine on the CPU")},
        {QObject::tr("Fits budget"),
         [](const P &p) {
             return !p.memoryMeasured() ? QObject::tr("not measured")
                    : p.fitsBudget      ? QObject::tr("yes")
                                        : QObject::tr("no");
         },
         {},
         false,
         {}},
    };
}

// The mJ/inference column of sweepPointColumns().
constexpr int kSweepEnergyColumn = 6;

SweepView::SweepView(JobTracker *jobs, QLineEdit *inputs, QWidget *parent)
    : QWidget(parent), m_jobs(jobs), m_inputs(inputs), m_batches(new QLineEdit(this)), m_variants(new QLineEdit(this)),
      m_budget(new QLineEdit(this)), m_iterations(new QSpinBox(this)), m_run(new QPushButton(tr("Run sweep"), this)),
      m_export(new QPushButton(tr("Export…"), this)), m_status(new QLabel(this)), m_summary(new QLabel(this)),
      m_plots(new SweepPlots(this)), m_model(new SweepPointsModel(sweepPointColumns(), this)), m_table(new QTableView(this))
{
    auto *settings = new QGroupBox(tr("Sweep settings"), this);
    auto *form = new QFormLayout(settings);
    m_batches->setText(QStringLiteral("1,2,4,8,16"));
    m_batches->setToolTip(tr("Batch sizes, in order; empty: 1, 2, 4, … until the memory budget (or 1024)"));
    form->addRow(tr("Batch sizes"), m_batches);
    m_variants->setText(QStringLiteral("baseline"));
    m_variants->setMinimumWidth(m_variants->fontMetrics().horizontalAdvance(QStringLiteral("baseline,frozen,channels_last,int8")));
    m_variants->setToolTip(tr("Comma-separated: %1").arg(QString::fromStdString(model::knownVariantNames())));
    form->addRow(tr("Variants"), m_variants);
    m_budget->setPlaceholderText(tr("none, or 4GiB, 512MiB"));
    m_budget->setToolTip(tr("Peak memory a batch may use; the sweep reports the largest batch within it"));
    form->addRow(tr("Memory budget"), m_budget);
    m_iterations->setRange(1, 10000);
    m_iterations->setValue(10);
    m_iterations->setToolTip(tr("Timed runs per point, after %1 untimed").arg(3));
    form->addRow(tr("Timed runs"), m_iterations);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_export);
    buttons->addStretch(1);
    form->addRow(buttons);
    m_export->setEnabled(false);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // One line per variant, unwrapped: a word-wrapped label in this row got one line's height.
    // Ignored width keeps a long line from widening the page; the tooltip has it whole.
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(SweepPointsModel::SortRole);
    tables::useSortHeader(m_table);
    m_table->setModel(proxy);
    m_model->setCellTooltip(kSweepEnergyColumn, [](const model::SweepPoint &p) {
        return energyTooltip(p.energyMjPerInference, p.machineEnergyMjPerInference, p.idlePowerW);
    });
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // measured order until the user sorts
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);

    auto *top = new QHBoxLayout;
    top->addWidget(settings);
    auto *right = new QVBoxLayout;
    right->addWidget(m_summary);
    right->addWidget(m_status);
    right->addStretch(1);
    top->addLayout(right, 1);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_plots);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);

    connect(m_run, &QPushButton::clicked, this, &SweepView::runSweep);
    connect(m_export, &QPushButton::clicked, this, &SweepView::chooseExport);
    connect(jobs, &JobTracker::finished, this,
            [this](JobTracker::JobId id, const QString &, JobOutcome outcome, const QString &message) { jobFinished(id, outcome, message); });
}

void SweepView::setModel(const QString &path)
{
    if (m_runningJob)
        m_jobs->cancel(m_runningJob);
    ++m_serial;
    m_path = path;
    m_report.reset();
    m_plots->clear();
    m_model->clear();
    m_summary->clear();
    m_status->clear();
    m_export->setEnabled(false);
}

void SweepView::runSweep()
{
    if (m_path.isEmpty() || m_runningJob)
        return;
    model::SweepOptions options;
    const QString file = QFileInfo(m_path).fileName();
    const auto fail = [this](const QString &message) { m_status->setText(message); };
    if (!parseBatches(m_batches->text(), &options.batches))
        return fail(tr("Batch sizes: \"%1\" is not a list of whole numbers from 1, such as 1,2,4,8").arg(m_batches->text()));
    const auto variants = model::parseVariants(m_variants->text().toStdString());
    if (!variants.ok())
        return fail(tr("Variants: %1").arg(QString::fromStdString(variants.error().message)));
    options.variants = variants.value();
    if (!m_budget->text().trimmed().isEmpty()) {
        const auto budget = model::parseByteSize(m_budget->text().trimmed().toStdString());
        if (!budget)
            return fail(tr("Memory budget: \"%1\" is not a size such as 4GiB or 512MiB").arg(m_budget->text()));
        options.memoryBudgetBytes = *budget;
    }
    const QString spec = m_inputs ? m_inputs->text().trimmed() : QString();
    const auto files =
        model::dataFilesIn(spec.toStdString(), std::filesystem::path(m_path.toStdString()).parent_path());
    if (!files.ok())
        return fail(tr("Inputs \"%1\": %2").arg(spec, QString::fromStdString(files.error().message)));
    if (files.value()) {
        // Samples saved by torch.save: their shapes, the batch swept.
        const auto inputs = engine::inputsOfData(files.value()->data, model::BatchDim::Swept);
        if (!inputs.ok())
            return fail(QString::fromStdString(inputs.error().message));
        options.inputs = inputs.value();
    } else if (!spec.isEmpty()) {
        const auto inputs = model::parseInputSpecs(spec.toStdString(), model::BatchDim::Swept);
        if (!inputs.ok())
            return fail(tr("Inputs \"%1\": %2").arg(spec, QString::fromStdString(inputs.error().message)));
        options.inputs = inputs.value();
    }
    options.warmup = 3;
    options.iterations = m_iterations->value();

    const quint64 serial = ++m_serial;
    m_report.reset();
    m_plots->clear();
    m_plots->setBudget(options.memoryBudgetBytes);
    m_model->clear();
    m_summary->clear();
    m_export->setEnabled(false);
    m_run->setEnabled(false);
    m_status->setText(tr("Sweeping… (points appear as they are measured; cancel in the status bar)"));
    const std::filesystem::path path = m_path.toStdString();
    const auto engine = m_engineSource ? m_engineSource() : engine::Engine{};
    QPointer<SweepView> guard(this);
    JobTracker *jobs = m_jobs;
    m_starting = true;
    const auto id = m_jobs->run<std::shared_ptr<const model::SweepReport>>(
        tr("Sweeping batch sizes of %1").arg(file), QStringLiteral("model-page-sweep"),
        [path, engine, options, guard, jobs, serial](
            ProgressReporter &progress, const StopToken &stop) -> Result<std::shared_ptr<const model::SweepReport>> {
            // Each point goes to the GUI thread at once; the tracker outlives its workers.
            const auto onPoint = [guard, jobs, serial](const model::SweepPoint &point) {
                QMetaObject::invokeMethod(
                    jobs, [guard, serial, point] {
                        if (guard)
                            guard->addPoint(serial, point);
                    },
                    Qt::QueuedConnection);
            };
            auto report = engine::runSweep(engine, path, options, onPoint, progress, stop);
            if (!report.ok())
                return report.error();
            return std::make_shared<const model::SweepReport>(std::move(report).value());
        },
        this,
        [this, serial](std::shared_ptr<const model::SweepReport> report) {
            if (serial == m_serial) {
                m_report = report;
                showReport(*report);
            }
        });
    m_starting = false;
    if (m_jobs->activeJobs().contains(id))
        m_runningJob = id;
}

void SweepView::addPoint(quint64 serial, const model::SweepPoint &point)
{
    if (serial != m_serial)
        return;
    m_plots->addPoint(point);
    m_model->appendRow(point);
    Q_EMIT pointAdded(point);
}

void SweepView::showReport(const model::SweepReport &report)
{
    m_plots->setSummaries(report.summaries);
    QStringList lines;
    for (const auto &summary : report.summaries) {
        QString line = QStringLiteral("<b>%1</b>: ").arg(QString::fromStdString(summary.variant).toHtmlEscaped());
        if (!summary.error.empty()) {
            lines << line + tr("failed: %1").arg(QString::fromStdString(summary.error).toHtmlEscaped());
            continue;
        }
        line += summary.knee ? tr("knee at batch %1 (%2 samples/s; doubling gains %3%)")
                                   .arg(summary.knee->batch)
                                   .arg(summary.knee->throughputPerSecond, 0, 'f', 1)
                                   .arg(summary.knee->gainPerDoubling * 100, 0, 'f', 1)
                             : tr("no knee: throughput still gains 10% or more per doubling");
        if (report.memoryBudgetBytes > 0)
            line += tr("; largest batch within %1: %2")
                        .arg(bytesText(report.memoryBudgetBytes),
                             summary.largestFittingBatch ? QString::number(summary.largestFittingBatch) : tr("none"));
        if (!summary.note.empty())
            line += QStringLiteral("; ") + QString::fromStdString(summary.note).toHtmlEscaped();
        lines << line;
    }
    lines << (report.memorySource == "cpu-allocator" ? tr("<small>Peak memory: weights (serialized size) + inputs + "
                                                          "the CPU allocator's peak during the runs "
                                                          "(cpu-allocator)</small>")
              : report.memorySource == "cuda-allocator"
                  ? tr("<small>Peak memory: torch.cuda.max_memory_allocated over the runs (cuda-allocator)</small>")
                  : tr("<small>Peak memory: not measured (the Python engine measures it on CUDA only; the embedded "
                       "engine "
                       "measures a TorchScript model's on the CPU)</small>"));
    std::optional<double> idleWatts;
    for (const auto &point : report.points)
        if (!idleWatts)
            idleWatts = point.idlePowerW;
    lines << QStringLiteral("<small>%1</small>")
                 .arg(energySentence(report.energyUnavailable, idleWatts).toHtmlEscaped());
    m_summary->setText(lines.join(QStringLiteral("<br>")));
    m_summary->setToolTip(m_summary->text());
    m_export->setEnabled(!report.points.empty());
}

void SweepView::jobFinished(JobTracker::JobId id, JobOutcome outcome, const QString &message)
{
    if (id != m_runningJob && !m_starting)
        return;
    m_runningJob = 0;
    m_run->setEnabled(true);
    switch (outcome) {
    case JobOutcome::Succeeded: m_status->clear(); break;
    case JobOutcome::Cancelled:
    case JobOutcome::Superseded: m_status->setText(tr("Cancelled; the points measured so far stay.")); break;
    case JobOutcome::Failed: m_status->setText(tr("Failed: %1").arg(message)); break;
    }
    if (outcome != JobOutcome::Succeeded)
        m_export->setEnabled(m_model->rowCount() > 0);
}

nlohmann::json SweepView::saveState() const
{
    nlohmann::json state{{"batches", m_batches->text().toStdString()},
                         {"variants", m_variants->text().toStdString()},
                         {"budget", m_budget->text().toStdString()},
                         {"iterations", m_iterations->value()}};
    if (m_report) {
        state["report"] = sweepReportToJson(*m_report);
    } else if (m_model->rowCount() > 0) {
        state["points"] = sweepPointsToJson(m_model->rows());
    }
    return state;
}

void SweepView::restoreState(const nlohmann::json &state)
{
    if (!state.is_object())
        return;
    const auto text = [&](const char *key, const QLineEdit *edit) {
        const auto it = state.find(key);
        return it != state.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : edit->text();
    };
    m_batches->setText(text("batches", m_batches));
    m_variants->setText(text("variants", m_variants));
    m_budget->setText(text("budget", m_budget));
    if (const auto it = state.find("iterations"); it != state.end() && it->is_number_integer())
        m_iterations->setValue(it->get<int>());

    ++m_serial; // a sweep still running for the model shown before is not this one
    m_report.reset();
    m_plots->clear();
    m_model->clear();
    m_summary->clear();
    m_status->clear();
    std::vector<model::SweepPoint> points;
    if (const auto it = state.find("report"); it != state.end()) {
        if (auto report = sweepReportFromJson(*it)) {
            m_report = std::make_shared<const model::SweepReport>(std::move(*report));
            points = m_report->points;
        }
    } else if (const auto partial = state.find("points"); partial != state.end()) {
        points = sweepPointsFromJson(*partial).value_or(std::vector<model::SweepPoint>{});
    }
    if (const auto budget = model::parseByteSize(m_budget->text().trimmed().toStdString()))
        m_plots->setBudget(*budget);
    for (const auto &point : points) {
        m_plots->addPoint(point);
        m_model->appendRow(point);
    }
    if (m_report)
        showReport(*m_report);
    else if (!points.empty())
        m_status->setText(tr("This sweep did not finish; the points measured before it stopped are shown."));
    m_export->setEnabled(!points.empty());
}

bool SweepView::exportPng(const QString &path) const
{
    return m_plots->savePng(path);
}

bool SweepView::exportSvg(const QString &path) const
{
    return m_plots->saveSvg(path);
}

bool SweepView::exportCsv(const QString &path) const
{
    QList<int> columns;
    for (int column = 0; column < m_model->columnCount(); ++column)
        columns << column;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return file.write(tables::rowsAsCsv(m_model, tables::allRows(m_model), columns).toUtf8()) >= 0;
}

void SweepView::chooseExport()
{
    QString filter;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the sweep"), QFileInfo(m_path).completeBaseName() + QStringLiteral("-sweep.png"),
                                                      tr("PNG image (*.png);;SVG image (*.svg);;CSV table (*.csv)"), &filter);
    if (path.isEmpty())
        return;
    const QString suffix = QFileInfo(path).suffix().toLower();
    const bool ok = suffix == QLatin1String("svg") ? exportSvg(path) : suffix == QLatin1String("csv") ? exportCsv(path) : exportPng(path);
    m_status->setText(ok ? tr("Exported to %1").arg(path) : tr("Could not write %1").arg(path));
}

} // namespace pyrometer::ui
