#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/analysis/roofline.h"
#include "ui/workspace/document.h"

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QStackedLayout;

namespace pyrometer::ui {

class EmptyState;
class JobTracker;
class TraceChooser;
class Workspace;

namespace plots {
class RooflinePlot;
}
namespace tables {
class TablePane;
struct TableTree;
}

namespace roofline {

// The roofline of one open trace: each op of known work placed by its arithmetic intensity and
// the FLOP/s it reached under its device's roofs, with the table of its figures and what to
// change. The device is the trace's own from the table, one the user picks, or the roof set in
// Preferences for devices the table lacks. Every figure is core/analysis's.
class RooflinePage final : public QWidget {
    Q_OBJECT
public:
    RooflinePage(Workspace *workspace, JobTracker *jobs, QWidget *parent = nullptr);

    void showTrace(DocumentId id);
    DocumentId currentTrace() const { return m_traceId; }
    bool hasContent() const;
    // The roof for traces whose device the table lacks (Preferences), or nothing.
    void setFallbackDevice(std::optional<analysis::DeviceRoof> device);

    const analysis::Roofline *roofline() const { return m_roofline.get(); }
    plots::RooflinePlot *plot() const { return m_plot; }
    tables::TablePane *table() const { return m_table; }
    QComboBox *deviceChooser() const { return m_device; } // item 0: the trace's own; then the table
    enum RowKind { OpRows, ShapeRows, KernelRows };
    QComboBox *rowChooser() const { return m_rowKind; } // items in RowKind order
    QLabel *summary() const { return m_summary; }
    QLabel *advice() const { return m_advice; }

Q_SIGNALS:
    // A row or point standing for events by name was selected / activated.
    void rowEventsSelected(int traceId, const QString &eventName);
    void rowEventsActivated(int traceId, const QString &eventName);
    void rooflineShown();

private:
    std::optional<analysis::DeviceRoof> chosenDevice() const;
    void recompute();
    void populate(std::shared_ptr<const analysis::Roofline> roofline);

    Workspace *m_workspace;
    JobTracker *m_jobs;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    TraceChooser *m_traceChooser;
    QComboBox *m_device;
    QComboBox *m_rowKind;
    QLabel *m_summary;
    QLabel *m_advice;
    plots::RooflinePlot *m_plot;
    tables::TablePane *m_table;
    DocumentId m_traceId = kNoDocument;
    std::optional<analysis::DeviceRoof> m_fallback;
    std::shared_ptr<const analysis::Roofline> m_roofline;
    std::vector<std::size_t> m_pointRows; // the roofline row of each plotted point
};

// The roofline's rows as a table: op (with its input shape when by shape; a kernel with its
// launching op when by kernel), calls, time, share, GFLOP, MB, FLOP/byte, TFLOP/s, GB/s, roof,
// % of roof, bound; "unknown" where a figure cannot be known.
tables::TableTree buildRooflineTree(const analysis::Roofline &roofline, RooflinePage::RowKind kind = RooflinePage::OpRows);

} // namespace roofline
} // namespace pyrometer::ui
