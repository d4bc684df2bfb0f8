#pragma once

#include <QWidget>

class QLabel;

namespace pyrometer::ui {

// What a page shows before it has content: what will appear there, and how to get it.
class EmptyState final : public QWidget {
    Q_OBJECT
public:
    EmptyState(const QString &title, const QString &description, const QString &hint, QWidget *parent = nullptr);

    void setHint(const QString &hint);
    QString title() const;
    QString description() const;
    QString hint() const;

private:
    QLabel *m_title;
    QLabel *m_description;
    QLabel *m_hint;
};

} // namespace pyrometer::ui
