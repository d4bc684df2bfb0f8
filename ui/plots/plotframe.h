#pragma once

class QCustomPlot;
class QPalette;
class QWidget;

namespace pyrometer::ui::plots {

// A QCustomPlot filling `host` edge to edge, at least minimumHeight tall, with its legend in a
// row of its own above the axes, so that the legend never covers data. It follows the palette.
QCustomPlot *createPlot(QWidget *host, int minimumHeight);

// Colours `plot` from the palette: its background (the palette's Base, the "paper"), axes,
// ticks, labels, grid, legend and title text. Whatever its owner filled with white, meaning the
// paper (text backgrounds, markers' insides), follows the paper; graph and marker pens and text items
// keep their hue but are lightened or darkened to stay readable on it (3:1 for lines, 4.5:1 for
// text).
void stylePlot(QCustomPlot *plot, const QPalette &palette);

// Colours for a chart written to a file: black on white whatever the theme, as reports and
// images are read on pages of their own. stylePlot(plot, printPalette()) before drawing it
// with toPainter; the next replot returns it to the theme.
QPalette printPalette();

// Styles `plot` before every replot from its current palette, so a theme change or content
// added later is coloured as the rest. Every chart calls this once (createPlot does).
void followPalette(QCustomPlot *plot);

} // namespace pyrometer::ui::plots
