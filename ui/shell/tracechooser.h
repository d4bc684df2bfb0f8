#pragma once

#include <QComboBox>

namespace pyrometer::ui {

class Workspace;

// The "which open trace" box of the per-trace pages: it lists every trace the workspace opens,
// moves to the newest, drops those closed, and says which one the user chose. Its context menu
// closes the trace chosen.
class TraceChooser final : public QComboBox {
    Q_OBJECT
public:
    explicit TraceChooser(Workspace *workspace, QWidget *parent = nullptr);

    // Shows trace id as chosen, without announcing it.
    void select(int id);

Q_SIGNALS:
    void traceChosen(int id);

private:
    bool m_quiet = false;
};

} // namespace pyrometer::ui
