#include "ui/shell/messagebanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

namespace pyrometer::ui {

namespace {
constexpr int kKeptMessages = 5;
}

MessageBanner::MessageBanner(QWidget *parent) : QFrame(parent), m_label(new QLabel(this)), m_actions(new QHBoxLayout)
{
    setObjectName(QStringLiteral("messageBanner"));
    setStyleSheet(QStringLiteral("#messageBanner { background: #fdecea; border: 1px solid #e57373; border-radius: 4px; }"
                                 "#messageBanner QLabel { color: #611a15; }"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 6, 6);
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::RichText); // the messages are escaped: one alone must not show &quot;
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_label, 1);
    layout->addLayout(m_actions);
    auto *close = new QToolButton(this);
    close->setText(QStringLiteral("\u2715"));
    close->setToolTip(tr("Dismiss"));
    close->setAutoRaise(true);
    layout->addWidget(close, 0, Qt::AlignTop);
    connect(close, &QToolButton::clicked, this, &MessageBanner::dismiss);
    hide();
}

void MessageBanner::showError(const QString &message)
{
    m_messages.append(message);
    while (m_messages.size() > kKeptMessages)
        m_messages.removeFirst();
    QStringList escaped;
    for (const auto &text : m_messages)
        escaped.append(text.toHtmlEscaped());
    m_label->setText(escaped.join(QStringLiteral("<br>")));
    show();
}

void MessageBanner::addAction(const QString &text, std::function<void()> action)
{
    auto *button = new QPushButton(text, this);
    m_actions->addWidget(button);
    connect(button, &QPushButton::clicked, this, [button, action = std::move(action)] {
        button->setEnabled(false);
        action();
    });
}

QList<QPushButton *> MessageBanner::actionButtons() const
{
    return findChildren<QPushButton *>();
}

void MessageBanner::dismiss()
{
    qDeleteAll(findChildren<QPushButton *>());
    m_messages.clear();
    m_label->clear();
    hide();
}

} // namespace pyrometer::ui
