#include "ui/shell/tracechooser.h"

#include "ui/workspace/workspace.h"

#include <QMenu>

namespace pyrometer::ui {

TraceChooser::TraceChooser(Workspace *workspace, QWidget *parent) : QComboBox(parent)
{
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(18);
    connect(workspace, &Workspace::traceOpened, this, [this, workspace](DocumentId id) {
        const auto document = workspace->trace(id);
        addItem(document->fileName(), id);
        // The whole name where the box elides it (a job's combined ranks have long ones).
        setItemData(count() - 1, document->fileName() + QLatin1Char('\n') + document->path, Qt::ToolTipRole);
        setCurrentIndex(count() - 1);
    });
    connect(workspace, &Workspace::traceSelected, this, [this](DocumentId id) {
        if (const int item = findData(id); item >= 0)
            setCurrentIndex(item);
    });
    // The page showing it decides where to go next.
    connect(workspace, &Workspace::traceClosed, this, [this](DocumentId id) {
        if (const int item = findData(id); item >= 0) {
            m_quiet = true;
            removeItem(item);
            m_quiet = false;
        }
    });
    connect(this, &QComboBox::currentIndexChanged, this, [this](int item) {
        setToolTip(itemData(item, Qt::ToolTipRole).toString());
        if (item >= 0 && !m_quiet)
            Q_EMIT traceChosen(itemData(item).toInt());
    });
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QWidget::customContextMenuRequested, this, [this, workspace](const QPoint &at) {
        if (currentIndex() < 0)
            return;
        QMenu menu(this);
        const DocumentId id = currentData().toInt();
        menu.addAction(tr("Close %1").arg(currentText()), this, [workspace, id] { workspace->closeTrace(id); });
        menu.exec(mapToGlobal(at));
    });
}

void TraceChooser::select(int id)
{
    const int item = findData(id);
    if (item < 0 || item == currentIndex())
        return;
    m_quiet = true;
    setCurrentIndex(item);
    m_quiet = false;
}

} // namespace pyrometer::ui
