#pragma once

class QCustomPlot;
class QWidget;

namespace pyrometer::ui::plots {

// A QCustomPlot filling `host` edge to edge, at least minimumHeight tall, with its legend in a
// row of its own above the axes, so that the legend never covers data.
QCustomPlot *createPlot(QWidget *host, int minimumHeight);

} // namespace pyrometer::ui::plots
