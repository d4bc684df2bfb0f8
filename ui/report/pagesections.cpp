#include "ui/report/pagesections.h"

#include "ui/compare/comparepage.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/model/sweepview.h"
#include "ui/plots/sweepplots.h"

#include <QBuffer>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QPixmap>
#include <QTemporaryDir>
#include <QTextDocumentFragment>

#include <optional>

namespace pyrometer::ui {

namespace {

report::Image pngImage(const QByteArray &png, const std::string &caption, int width)
{
    return report::Image{caption, "image/png", std::string(png.constData(), std::size_t(png.size())), width};
}

std::string plainText(const QString &richOrPlain)
{
    return QTextDocumentFragment::fromHtml(richOrPlain).toPlainText().toStdString();
}

// A diff flame graph's rows as drawn, whole, at the page's width: not a widget's grab, which is
// as tall as the window and mostly empty below a shallow graph. Nothing without a graph.
std::optional<report::Image> flameImage(const ComparePage::DiffFlame &flame)
{
    constexpr int kFlameWidth = 1000;
    constexpr int kFlameMaxHeight = 1400;
    if (!flame.graph)
        return std::nullopt;
    flamegraph::FlameGraphView view;
    view.setGraph(flame.graph);
    view.setColorMode(flamegraph::FlameColorMode::ByChange);
    const QImage image = view.contentImage(kFlameWidth, kFlameMaxHeight);
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (image.isNull() || !image.save(&buffer, "PNG"))
        return std::nullopt;
    return pngImage(png, "Diff flame graph, " + flame.title.toStdString() + ": " + plainText(flame.caption), 0);
}

} // namespace

report::Table tableOfModel(const QAbstractItemModel &model, const std::string &caption, int maxRows)
{
    report::Table table;
    table.caption = caption;
    for (int column = 0; column < model.columnCount(); ++column) {
        table.header.push_back(model.headerData(column, Qt::Horizontal).toString().toStdString());
        const auto alignment = model.index(0, column).data(Qt::TextAlignmentRole).toInt();
        table.rightAligned.push_back((alignment & Qt::AlignRight) != 0);
    }
    for (int row = 0; row < std::min(model.rowCount(), maxRows); ++row) {
        std::vector<std::string> cells;
        for (int column = 0; column < model.columnCount(); ++column)
            cells.push_back(model.index(row, column).data().toString().toStdString());
        table.rows.push_back(std::move(cells));
    }
    table.names = {true}; // the first column names the row: an op, kernel, layer or variant
    return table;
}

std::vector<report::Section> sweepSections(const SweepView &sweep)
{
    if (sweep.pointsModel()->rowCount() == 0)
        return {};
    report::Section section;
    section.id = "sweep";
    section.title = "Batch-size sweep";
    const int points = sweep.pointsModel()->rowCount();
    if (sweep.report()) {
        if (const auto summary = plainText(sweep.summaryLabel()->text()); !summary.empty())
            section.paragraphs.push_back(summary);
    } else {
        // The points of a sweep cancelled, failed or still running: no summary, and said so.
        const std::string measured = std::to_string(points) + (points == 1 ? " point measured" : " points measured");
        section.title += sweep.runningJob() ? " (still running)" : " (did not finish)";
        section.paragraphs.push_back(sweep.runningJob() ? "This sweep is still running; " + measured + " so far."
                                                        : "This sweep did not finish; " + measured + ".");
    }
    // The charts as the Export button writes them, read back as bytes.
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("sweep.png"));
    QFile file(path);
    if (directory.isValid() && sweep.exportPng(path) && file.open(QIODevice::ReadOnly))
        section.images.push_back(pngImage(file.readAll(), "Latency, throughput and peak memory against the batch size", 0));
    section.tables.push_back(tableOfModel(*sweep.pointsModel(), "Points"));
    return {std::move(section)};
}

std::vector<report::Section> compareSections(const ComparePage &page)
{
    std::vector<report::Section> sections;
    if (page.variantsModel()->rowCount() > 0) {
        report::Section variants;
        variants.id = "variants";
        variants.title = "Optimized variants";
        if (const auto inputs = plainText(page.variantsStatus()->text()); !inputs.empty())
            variants.paragraphs.push_back(inputs);
        variants.tables.push_back(tableOfModel(*page.variantsModel(),
                                               "Variants against the baseline: latency of the timed runs, without the profiler"));
        if (page.layerModel()->rowCount() > 0)
            variants.tables.push_back(tableOfModel(*page.layerModel(), "Per-layer forward time of " +
                                                                           page.layerVariantCombo()->currentText().toStdString() +
                                                                           " against the baseline: ms per forward pass, the mean of " +
                                                                           std::to_string(page.profiledRuns()) +
                                                                           " profiled runs with the profiler's overhead"));
        if (auto image = flameImage(page.variantFlame()))
            variants.images.push_back(std::move(*image));
        sections.push_back(std::move(variants));
    }
    if (page.opDiffModel()->rowCount() > 0 || page.kernelDiffModel()->rowCount() > 0) {
        const auto [base, other] = page.comparedTraces();
        report::Section traces;
        traces.id = "trace-diff";
        traces.title = "Two traces compared: " + base.toStdString() + " → " + other.toStdString();
        traces.facts = {{"Base", base.toStdString()}, {"Other", other.toStdString()}, {"Deltas", "other minus base"}};
        traces.paragraphs.push_back(plainText(page.traceStatus()->text()));
        if (auto image = flameImage(page.tracesFlame()))
            traces.images.push_back(std::move(*image));
        traces.tables.push_back(tableOfModel(*page.opDiffModel(), "Operators (self time)", 25));
        traces.tables.push_back(tableOfModel(*page.kernelDiffModel(), "Kernels, memcpy and memset (device time)", 25));
        sections.push_back(std::move(traces));
    }
    return sections;
}

} // namespace pyrometer::ui
