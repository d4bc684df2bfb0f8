#include "ui/snapshot/tracejoinbar.h"

#include "core/snapshot/tracejoin.h"
#include "ui/workspace/workspace.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace pyrometer::ui {

TraceJoinBar::TraceJoinBar(Workspace *workspace, QWidget *parent) : QWidget(parent), m_workspace(workspace)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_traces = new QComboBox(this);
    m_traces->setMinimumContentsLength(12);
    m_traces->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_traces->setToolTip(tr("A trace of the same run, recorded with profile_memory=True"));
    m_offset = new QLineEdit(this);
    m_offset->setPlaceholderText(tr("found"));
    m_offset->setToolTip(tr("Seconds to add to the snapshot's times to reach the trace's clock; empty: found from the "
                            "trace's [memory] events"));
    m_offset->setMaximumWidth(fontMetrics().horizontalAdvance(QStringLiteral("-1700000000.000000 ")));
    m_join = new QPushButton(tr("Join"), this);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(new QLabel(tr("Join with trace:"), this));
    layout->addWidget(m_traces, 1);
    layout->addWidget(new QLabel(tr("Offset (s):"), this));
    layout->addWidget(m_offset);
    layout->addWidget(m_join);
    layout->addWidget(m_status, 3);
    connect(m_join, &QPushButton::clicked, this, &TraceJoinBar::requestJoin);
    connect(m_offset, &QLineEdit::returnPressed, this, &TraceJoinBar::requestJoin);
    if (m_workspace) {
        connect(m_workspace, &Workspace::traceOpened, this, &TraceJoinBar::refresh);
        connect(m_workspace, &Workspace::traceClosed, this, &TraceJoinBar::refresh);
    }
    refresh();
}

void TraceJoinBar::refresh()
{
    const auto chosen = chosenTrace();
    m_traces->clear();
    if (m_workspace) {
        for (const auto &[id, document] : m_workspace->traces())
            m_traces->addItem(document->fileName(), id);
    }
    if (m_traces->count() == 0)
        m_traces->addItem(tr("— none open"), kNoDocument);
    chooseTrace(chosen);
    m_join->setEnabled(chosenTrace() != kNoDocument);
    showStatus();
}

DocumentId TraceJoinBar::chosenTrace() const
{
    return m_traces->currentIndex() >= 0 ? m_traces->currentData().toInt() : kNoDocument;
}

void TraceJoinBar::chooseTrace(DocumentId id)
{
    const int item = m_traces->findData(id);
    if (item >= 0)
        m_traces->setCurrentIndex(item);
}

void TraceJoinBar::setStatus(const QString &text, bool joined)
{
    m_statusText = text;
    m_joined = joined;
    showStatus();
}

void TraceJoinBar::showStatus()
{
    // With nothing said and no trace open, what a join gives and how to get one.
    const bool hint = m_statusText.isEmpty() && chosenTrace() == kNoDocument;
    m_status->setText(hint ? tr("Open a trace of the same run, recorded with profile_memory=True, to see this memory "
                                "in its Timeline and the ops that made it.")
                           : m_statusText);
    m_status->setForegroundRole(m_joined && !hint ? QPalette::WindowText : QPalette::PlaceholderText);
}

void TraceJoinBar::requestJoin()
{
    const auto trace = chosenTrace();
    if (trace == kNoDocument)
        return;
    const QString typed = m_offset->text().trimmed();
    if (typed.isEmpty()) {
        Q_EMIT joinRequested(trace, std::nullopt);
        return;
    }
    const auto offset = snapshot::parseOffsetSeconds(typed.toStdString());
    if (!offset) {
        setStatus(tr("The offset is seconds, as a number such as -1699999996.000002 (\"%1\" is not one).").arg(typed),
                  false);
        return;
    }
    Q_EMIT joinRequested(trace, *offset);
}

} // namespace pyrometer::ui
