#pragma once

#include "core/trace/tracesource.h"

#include <QDialog>

#include <vector>

class QTreeWidget;

namespace pyrometer::ui {

// Lists the runs, workers and spans of a TensorBoard log directory, each file with a check
// box; the checked files are opened. The first file is checked to begin with.
class RunChooserDialog final : public QDialog {
    Q_OBJECT
public:
    RunChooserDialog(const QString &logDir, const std::vector<trace::LogRun> &runs, QWidget *parent = nullptr);

    QStringList checkedFiles() const;
    QTreeWidget *tree() const { return m_tree; }

private:
    QTreeWidget *m_tree;
};

} // namespace pyrometer::ui
