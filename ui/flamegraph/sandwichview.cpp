#include "ui/flamegraph/sandwichview.h"

#include "ui/flamegraph/flamegraphview.h"
#include "ui/flamegraph/flametooltip.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace pyrometer::ui::flamegraph {

SandwichView::SandwichView(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_back(new QToolButton(this)), m_callers(new FlameGraphView(this)),
      m_callees(new FlameGraphView(this)), m_splitter(new QSplitter(Qt::Vertical, this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    m_back->setText(tr("‹ Back to the flame graph"));
    m_back->setAutoRaise(true);
    bar->addWidget(m_back);
    m_title->setTextFormat(Qt::RichText);
    bar->addWidget(m_title, 1);
    layout->addLayout(bar);

    m_splitter->addWidget(m_callers);
    m_splitter->addWidget(m_callees);
    m_splitter->setChildrenCollapsible(false);
    layout->addWidget(m_splitter, 1);
    m_callers->setInverted(true);

    connect(m_back, &QToolButton::clicked, this, &SandwichView::closeRequested);
    for (auto *view : {m_callers, m_callees})
        connect(view, &FlameGraphView::sandwichRequested, this, &SandwichView::sandwichRequested);
}

void SandwichView::setSandwich(const QString &function, std::size_t stacks, std::shared_ptr<const analysis::FlameGraph> callers,
                               std::shared_ptr<const analysis::FlameGraph> callees)
{
    m_function = function;
    const auto total = callees->tree.nodes[0].totalNs;
    const auto self = callees->tree.nodes[0].selfNs;
    const QString on = stacks == 1 ? tr("on 1 stack") : tr("on %1 stacks").arg(stacks);
    m_title->setText(tr("<b>%1</b>: %2 total, %3 self, %4. Its callers are above it (read upwards), its callees "
                        "below.")
                         .arg(function.toHtmlEscaped(), duration(total), duration(self), on));
    m_callerRows = int(callers->height[0]);
    m_callers->setGraph(std::move(callers));
    m_callees->setGraph(std::move(callees));
    applySplit();
}

void SandwichView::applySplit()
{
    // The callers as tall as their rows, within reason: their chains are often short.
    const int rowHeight = m_callers->rowHeight();
    const int space = std::max(200, m_splitter->height());
    const int above = std::clamp((m_callerRows + 1) * rowHeight, space / 5, space * 3 / 5);
    m_splitter->setSizes({above, space - above});
}

void SandwichView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    applySplit();
}

void SandwichView::setColorMode(FlameColorMode mode)
{
    // Change colours need a diff; the sandwich is of one run.
    const auto plain = mode == FlameColorMode::ByChange ? FlameColorMode::ByCategory : mode;
    m_callers->setColorMode(plain);
    m_callees->setColorMode(plain);
}

} // namespace pyrometer::ui::flamegraph
