#pragma once

#include <QFrame>

#include <functional>

class QHBoxLayout;
class QLabel;
class QPushButton;

namespace pyrometer::ui {

// A non-modal error strip at the top of the window: failures are shown without blocking the
// user (or a screenshot run) behind a dialog. It keeps the last few messages until closed.
class MessageBanner final : public QFrame {
    Q_OBJECT
public:
    explicit MessageBanner(QWidget *parent = nullptr);

    void showError(const QString &message);
    // Adds a button to the banner (until it is dismissed) that runs action once.
    void addAction(const QString &text, std::function<void()> action);
    QList<QPushButton *> actionButtons() const;
    QStringList messages() const { return m_messages; }
    void dismiss();

private:
    QLabel *m_label;
    QHBoxLayout *m_actions;
    QStringList m_messages;
};

} // namespace pyrometer::ui
