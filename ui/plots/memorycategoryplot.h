#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/record/memorycategories.h"

class QCustomPlot;

namespace pyrometer::ui::plots {

// A recorded program's memory by category over time (QCustomPlot), stacked bottom to top:
// parameters, gradients, optimizer state, inputs, activations, temporaries, other; the peak
// marked and labelled; recorded steps shaded.
class MemoryCategoryPlot final : public QWidget {
    Q_OBJECT
public:
    explicit MemoryCategoryPlot(QWidget *parent = nullptr);

    // peak: record::memoryPeak(categories), marked and labelled.
    void setCategories(const record::MemoryCategories &categories, const record::MemoryPeak &peak);

    QCustomPlot *plot() const { return m_plot; }
    // Bytes per unit of the value axis (KiB, MiB or GiB).
    double bytesPerUnit() const { return m_bytesPerUnit; }
    // The categories in stacking order, bottom first.
    static const std::vector<record::MemoryCategory> &stackOrder();
    static QColor categoryColor(record::MemoryCategory category);

private:
    QCustomPlot *m_plot;
    double m_bytesPerUnit = 1;
};

// What a peak held, largest first, each category with its colour, size and share (HTML):
// "■ Parameters 1.2 MiB (40%), ■ Activations …".
QString peakCompositionHtml(const record::MemorySample &peak);

} // namespace pyrometer::ui::plots
