#pragma once

#include <QFrame>

class QLabel;

namespace pyrometer::ui {

// A non-modal error strip at the top of the window: failures are shown without blocking the
// user (or a screenshot run) behind a dialog. It keeps the last few messages until closed.
class MessageBanner final : public QFrame {
    Q_OBJECT
public:
    explicit MessageBanner(QWidget *parent = nullptr);

    void showError(const QString &message);
    QStringList messages() const { return m_messages; }
    void dismiss();

private:
    QLabel *m_label;
    QStringList m_messages;
};

} // namespace pyrometer::ui
