#pragma once

#include <QWidget>

class QLabel;
class QStackedLayout;
class QTreeWidget;

namespace pyrometer::ui {

class EmptyState;
class Workspace;

// The Model page: the loaded TorchScript model's module tree with parameters per module.
// Profiling controls and per-layer timings join it as they are built.
class ModelPage final : public QWidget {
    Q_OBJECT
public:
    explicit ModelPage(Workspace *workspace, QWidget *parent = nullptr);

    QTreeWidget *moduleTree() const { return m_tree; }
    EmptyState *emptyState() const { return m_empty; }
    bool hasContent() const;

private:
    void showModel(int index);

    Workspace *m_workspace;
    QStackedLayout *m_stack;
    EmptyState *m_empty;
    QLabel *m_summary;
    QTreeWidget *m_tree;
};

} // namespace pyrometer::ui
