#include "ui/shell/emptystate.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace pyrometer::ui {

EmptyState::EmptyState(const QString &title, const QString &description, const QString &hint, QWidget *parent)
    : QWidget(parent), m_title(new QLabel(title, this)), m_description(new QLabel(description, this)),
      m_hint(new QLabel(hint, this))
{
    // A centred column of bounded width: wrapped labels get their full height for that width.
    auto *column = new QWidget(this);
    column->setMaximumWidth(620);
    auto *columnLayout = new QVBoxLayout(column);
    columnLayout->setSpacing(12);
    for (auto *label : {m_title, m_description, m_hint}) {
        label->setAlignment(Qt::AlignCenter);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        columnLayout->addWidget(label);
    }
    auto *row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(column, 4);
    row->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->addStretch(2);
    layout->addLayout(row);
    layout->addStretch(3);

    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.6);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_description->setForegroundRole(QPalette::PlaceholderText);
    QFont hintFont = m_hint->font();
    hintFont.setPointSizeF(hintFont.pointSizeF() * 1.15);
    m_hint->setFont(hintFont);
}

void EmptyState::setHint(const QString &hint)
{
    m_hint->setText(hint);
}

QString EmptyState::title() const
{
    return m_title->text();
}

QString EmptyState::description() const
{
    return m_description->text();
}

QString EmptyState::hint() const
{
    return m_hint->text();
}

} // namespace pyrometer::ui
