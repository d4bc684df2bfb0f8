#include "ui/shell/tracechooser.h"

#include "ui/workspace/workspace.h"

#include <QFileInfo>

namespace pyrometer::ui {

TraceChooser::TraceChooser(Workspace *workspace, QWidget *parent) : QComboBox(parent)
{
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(18);
    connect(workspace, &Workspace::traceOpened, this, [this, workspace](int index) {
        addItem(QFileInfo(workspace->traces().at(std::size_t(index)).path).fileName(), index);
        setCurrentIndex(count() - 1);
    });
    connect(workspace, &Workspace::traceSelected, this, [this](int index) {
        if (const int item = findData(index); item >= 0)
            setCurrentIndex(item);
    });
    connect(this, &QComboBox::currentIndexChanged, this, [this](int item) {
        if (item >= 0 && !m_quiet)
            Q_EMIT traceChosen(itemData(item).toInt());
    });
}

void TraceChooser::select(int workspaceIndex)
{
    const int item = findData(workspaceIndex);
    if (item < 0 || item == currentIndex())
        return;
    m_quiet = true;
    setCurrentIndex(item);
    m_quiet = false;
}

} // namespace pyrometer::ui
