#include "ui/flamegraph/breadcrumbbar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace pyrometer::ui::flamegraph {

namespace {
constexpr int kMaxChars = 40;
}

BreadcrumbBar::BreadcrumbBar(QWidget *parent) : QWidget(parent), m_layout(new QHBoxLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    m_layout->addStretch(1);
}

QToolButton *BreadcrumbBar::button(int level) const
{
    return level >= 0 && level < m_buttons.size() ? m_buttons.at(level) : nullptr;
}

void BreadcrumbBar::setCrumbs(const QStringList &labels)
{
    if (labels == m_labels)
        return;
    m_labels = labels;
    m_buttons.clear();
    while (auto *item = m_layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    // Deep stacks: the first level, an ellipsis, and the last few.
    constexpr int kShown = 6;
    for (int level = 0; level < labels.size(); ++level) {
        if (labels.size() > kShown + 1 && level > 0 && level < labels.size() - kShown) {
            if (level == 1)
                m_layout->addWidget(new QLabel(QStringLiteral("› … "), this));
            m_buttons.append(nullptr);
            continue;
        }
        if (level > 0)
            m_layout->addWidget(new QLabel(QStringLiteral("›"), this));
        auto *button = new QToolButton(this);
        const QString &label = labels.at(level);
        button->setText(label.size() > kMaxChars ? label.left(kMaxChars - 1) + QStringLiteral("…") : label);
        button->setToolTip(label);
        button->setAutoRaise(true);
        button->setEnabled(level + 1 < labels.size());
        connect(button, &QToolButton::clicked, this, [this, level] { Q_EMIT crumbClicked(level); });
        m_layout->addWidget(button);
        m_buttons.append(button);
    }
    m_layout->addStretch(1);
}

} // namespace pyrometer::ui::flamegraph
