#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "core/engine/layerrooflines.h"

#include <functional>
#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;

namespace pyrometer::ui {

class JobTracker;

namespace plots {
class RooflinePlot;
}
namespace tables {
class TablePane;
}

// The Model page's Roofline tab: each layer's FLOPs and bytes over its time at each batch size,
// under the roof of the device that ran it (this CPU's, measured once and cached). The heaviest
// layers are drawn as trajectories across the batch sizes, so the batch where a layer turns
// compute-bound shows; the table holds every leaf layer at every batch.
class LayerRooflineView final : public QWidget {
    Q_OBJECT
public:
    // inputs: the Model page's input spec field, read when a run starts.
    LayerRooflineView(JobTracker *jobs, QLineEdit *inputs, QWidget *parent = nullptr);

    void setModel(const QString &path); // clears the results
    void setEngineSource(std::function<engine::Engine()> source) { m_engineSource = std::move(source); }
    // Where the measured CPU roof is cached (tests give one of their own).
    void setCpuRoofCache(const std::filesystem::path &file) { m_cache = file; }
    // Preferences' roof for a GPU the device table lacks.
    void setFallbackRoof(std::optional<analysis::DeviceRoof> roof) { m_fallback = std::move(roof); }
    void run();

    QLineEdit *batchesEdit() const { return m_batches; }
    QPushButton *runButton() const { return m_run; }
    QLabel *statusLabel() const { return m_status; }
    QLabel *summaryLabel() const { return m_summary; }
    plots::RooflinePlot *plot() const { return m_plot; }
    tables::TablePane *table() const { return m_table; }
    const engine::LayerRooflines *result() const { return m_result.get(); }

    static constexpr std::size_t kTrajectories = 8; // the heaviest layers drawn across batches

Q_SIGNALS:
    void rooflineShown();

private:
    void show(std::shared_ptr<const engine::LayerRooflines> result);
    // What the tab says before a run: open a model, or press Run roofline.
    static QString emptyHint(const QString &path);

    JobTracker *m_jobs;
    QLineEdit *m_inputs;
    QString m_path;
    std::function<engine::Engine()> m_engineSource;
    std::filesystem::path m_cache;
    std::optional<analysis::DeviceRoof> m_fallback;
    QLineEdit *m_batches;
    QPushButton *m_run;
    QLabel *m_status;
    QLabel *m_summary;
    plots::RooflinePlot *m_plot;
    tables::TablePane *m_table;
    std::shared_ptr<const engine::LayerRooflines> m_result;
    quint64 m_serial = 0;
};

} // namespace pyrometer::ui
