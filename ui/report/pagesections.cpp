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
    if (const auto summary = plainText(sweep.summaryLabel()->text()); !summary.empty())
        section.paragraphs.push_back(summary);
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
        variants.tables.push_back(tableOfModel(*page.variantsModel(), "Variants against the baseline"));
        if (page.layerModel()->rowCount() > 0)
            variants.tables.push_back(tableOfModel(*page.layerModel(),
                                                   "Per-layer time of " + page.layerVariantCombo()->currentText().toStdString() +
                                                       " against the baseline"));
        sections.push_back(std::move(variants));
    }
    if (page.opDiffModel()->rowCount() > 0 || page.kernelDiffModel()->rowCount() > 0) {
        report::Section traces;
        traces.id = "trace-diff";
        traces.title = "Two traces compared";
        traces.paragraphs.push_back(plainText(page.traceStatus()->text()));
        // The graph's rows as drawn, at the page's width: not the widget, which is as tall
        // as the window and mostly empty below a shallow graph.
        constexpr int kFlameWidth = 1000;
        constexpr int kFlameMaxHeight = 1400;
        if (const QImage image = page.diffFlameGraph()->contentImage(kFlameWidth, kFlameMaxHeight); !image.isNull()) {
            QByteArray png;
            QBuffer buffer(&png);
            buffer.open(QIODevice::WriteOnly);
            if (image.save(&buffer, "PNG"))
                traces.images.push_back(pngImage(png,
                                                 "Diff flame graph of " + page.flameSourceCombo()->currentText().toStdString() +
                                                     ": red slower, blue faster than the base",
                                                 0));
        }
        traces.tables.push_back(tableOfModel(*page.opDiffModel(), "Operators (self time)", 25));
        traces.tables.push_back(tableOfModel(*page.kernelDiffModel(), "Kernels, memcpy and memset (device time)", 25));
        sections.push_back(std::move(traces));
    }
    return sections;
}

} // namespace pyrometer::ui
