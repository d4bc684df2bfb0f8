#include "ui/plots/plotframe.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

namespace pyrometer::ui::plots {

QCustomPlot *createPlot(QWidget *host, int minimumHeight)
{
    auto *plot = new QCustomPlot(host);
    auto *layout = new QVBoxLayout(host);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot);
    plot->setMinimumHeight(minimumHeight);
    plot->legend->setVisible(true);
    plot->legend->setBrush(QColor(255, 255, 255, 220));
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(8);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    return plot;
}

} // namespace pyrometer::ui::plots
