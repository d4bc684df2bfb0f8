#pragma once

#include <QComboBox>

namespace pyrometer::ui {

class Workspace;

// The "which open trace" box of the per-trace pages: it lists every trace the workspace opens,
// moves to the newest, and says which one the user chose.
class TraceChooser final : public QComboBox {
    Q_OBJECT
public:
    explicit TraceChooser(Workspace *workspace, QWidget *parent = nullptr);

    // Shows trace workspaceIndex as chosen, without announcing it.
    void select(int workspaceIndex);

Q_SIGNALS:
    void traceChosen(int workspaceIndex);

private:
    bool m_quiet = false;
};

} // namespace pyrometer::ui
