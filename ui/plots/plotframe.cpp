#include "ui/plots/plotframe.h"

#include "ui/shell/contrast.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QVBoxLayout>

namespace pyrometer::ui::plots {

namespace {

// The paper colour a plot was last styled with, to recognise fills that follow it.
const char *const kPaperProperty = "pyrometerPaper";
// Per plottable or item: the colour its owner chose and the one last shown for it, so that a
// colour made readable is derived from the owner's again, and a colour the owner changed since
// is taken as the new choice.
const char *const kChosenProperty = "pyrometerChosenColor";
const char *const kShownProperty = "pyrometerShownColor";

QColor chosenColor(QObject *object, const QColor &current)
{
    const QVariant shown = object->property(kShownProperty);
    if (shown.isValid() && shown.value<QColor>() == current)
        return object->property(kChosenProperty).value<QColor>();
    object->setProperty(kChosenProperty, current);
    return current;
}

// The owner's colour for `object`, made readable on `background` at `ratio`.
QColor readable(QObject *object, const QColor &current, const QColor &background, double ratio)
{
    const QColor shown = readableOn(chosenColor(object, current), background, ratio);
    object->setProperty(kShownProperty, shown);
    return shown;
}

// Owners fill with white for "the paper", as QCustomPlot's own default is.
QBrush followPaper(const QBrush &brush, const QColor &oldPaper, const QColor &paper)
{
    const QRgb rgb = brush.color().rgb();
    if (brush.style() == Qt::NoBrush || (rgb != oldPaper.rgb() && rgb != qRgb(255, 255, 255)))
        return brush;
    QColor color = paper;
    color.setAlpha(brush.color().alpha());
    return QBrush(color);
}

QPen withColor(QPen pen, const QColor &color)
{
    pen.setColor(color);
    return pen;
}

// `a` mixed with `b`: t = 0 is a, 1 is b.
QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

void styleAxis(QCPAxis *axis, const QPalette &palette, const QColor &paper)
{
    const QColor text = palette.color(QPalette::Text);
    const QColor line = mix(paper, text, 0.75);
    axis->setBasePen(withColor(axis->basePen(), line));
    axis->setTickPen(withColor(axis->tickPen(), line));
    axis->setSubTickPen(withColor(axis->subTickPen(), line));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(withColor(axis->grid()->pen(), mix(paper, text, 0.25)));
    axis->grid()->setSubGridPen(withColor(axis->grid()->subGridPen(), mix(paper, text, 0.12)));
    axis->grid()->setZeroLinePen(withColor(axis->grid()->zeroLinePen(), mix(paper, text, 0.35)));
}

void styleLegend(QCPLegend *legend, const QPalette &palette, const QColor &paper)
{
    QColor back = paper;
    back.setAlpha(220);
    legend->setBrush(back);
    if (legend->borderPen().style() != Qt::NoPen)
        legend->setBorderPen(withColor(legend->borderPen(), palette.color(QPalette::Mid)));
    legend->setTextColor(palette.color(QPalette::Text));
    for (int i = 0; i < legend->itemCount(); ++i)
        if (auto *item = legend->item(i)) // a cell emptied by a removed plottable holds none
            item->setTextColor(palette.color(QPalette::Text));
}

void styleItem(QCPAbstractItem *item, const QColor &oldPaper, const QColor &paper)
{
    if (auto *text = qobject_cast<QCPItemText *>(item)) {
        text->setBrush(followPaper(text->brush(), oldPaper, paper));
        // On its own background when it has an opaque enough one, else on the paper.
        const QColor under = text->brush().style() != Qt::NoBrush && text->brush().color().alpha() >= 192
                                 ? text->brush().color()
                                 : paper;
        text->setColor(readable(text, text->color(), under, kTextContrast));
    } else if (auto *tracer = qobject_cast<QCPItemTracer *>(item)) {
        tracer->setBrush(followPaper(tracer->brush(), oldPaper, paper));
        tracer->setPen(withColor(tracer->pen(), readable(tracer, tracer->pen().color(), paper, kGraphicContrast)));
    } else if (auto *line = qobject_cast<QCPItemStraightLine *>(item)) {
        line->setPen(withColor(line->pen(), readable(line, line->pen().color(), paper, kGraphicContrast)));
    } else if (auto *segment = qobject_cast<QCPItemLine *>(item)) {
        segment->setPen(withColor(segment->pen(), readable(segment, segment->pen().color(), paper, kGraphicContrast)));
    }
}

void styleGraph(QCPGraph *graph, const QColor &oldPaper, const QColor &paper)
{
    if (graph->pen().style() != Qt::NoPen)
        graph->setPen(withColor(graph->pen(), readable(graph, graph->pen().color(), paper, kGraphicContrast)));
    QCPScatterStyle scatter = graph->scatterStyle();
    if (!scatter.isNone()) {
        scatter.setBrush(followPaper(scatter.brush(), oldPaper, paper));
        scatter.setPen(withColor(scatter.pen(), graph->pen().color()));
        graph->setScatterStyle(scatter);
    }
}

// Styles the plot whenever Qt gives it another palette (a theme change).
class PaletteFollower final : public QObject {
public:
    explicit PaletteFollower(QCustomPlot *plot) : QObject(plot), m_plot(plot) {}

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_plot && (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange))
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        return false;
    }

private:
    QCustomPlot *m_plot;
};

} // namespace

void stylePlot(QCustomPlot *plot, const QPalette &palette)
{
    const QVariant stored = plot->property(kPaperProperty);
    const QColor oldPaper = stored.isValid() ? stored.value<QColor>() : QColor(Qt::white);
    const QColor paper = palette.color(QPalette::Base);
    plot->setProperty(kPaperProperty, paper);
    plot->setBackground(QBrush(paper));
    for (auto *rect : plot->axisRects()) {
        for (auto *axis : rect->axes())
            styleAxis(axis, palette, paper);
    }
    for (auto *element : plot->plotLayout()->elements(true)) {
        if (auto *title = qobject_cast<QCPTextElement *>(element))
            title->setTextColor(palette.color(QPalette::Text));
    }
    if (plot->legend) // a chart that names its series otherwise has none
        styleLegend(plot->legend, palette, paper);
    for (int i = 0; i < plot->itemCount(); ++i)
        styleItem(plot->item(i), oldPaper, paper);
    for (int i = 0; i < plot->graphCount(); ++i)
        styleGraph(plot->graph(i), oldPaper, paper);
}

QPalette printPalette()
{
    QPalette palette(Qt::black, Qt::white);
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::Text, Qt::black);
    palette.setColor(QPalette::Mid, QColor(125, 125, 125));
    return palette;
}

void followPalette(QCustomPlot *plot)
{
    stylePlot(plot, plot->palette());
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] { stylePlot(plot, plot->palette()); });
    plot->installEventFilter(new PaletteFollower(plot));
}

QCustomPlot *createPlot(QWidget *host, int minimumHeight)
{
    auto *plot = new QCustomPlot(host);
    auto *layout = new QVBoxLayout(host);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot);
    plot->setMinimumHeight(minimumHeight);
    plot->legend->setVisible(true);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(8);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    followPalette(plot);
    return plot;
}

} // namespace pyrometer::ui::plots
