#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QWidget>

#include "ui/workspace/document.h"

#include <cstdint>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace pyrometer::ui {

class Workspace;

// Joins the snapshot shown with an open trace of the same run (recorded with profile_memory=True):
// the trace, the clock offset (found from the trace's [memory] events, or typed in seconds), and
// what the join found.
class TraceJoinBar final : public QWidget {
    Q_OBJECT
public:
    explicit TraceJoinBar(Workspace *workspace, QWidget *parent = nullptr);

    QComboBox *traceChooser() const { return m_traces; }
    QLineEdit *offsetEdit() const { return m_offset; }
    QPushButton *joinButton() const { return m_join; }
    QLabel *status() const { return m_status; }
    // What the last join said (empty: nothing); with nothing said and no trace open, the bar says
    // how to join one.
    void setStatus(const QString &text, bool joined);
    // Lists the open traces again, keeping the one chosen where it is still open.
    void refresh();
    DocumentId chosenTrace() const;
    void chooseTrace(DocumentId id);

Q_SIGNALS:
    // offsetNs: what the user typed, or none to find it.
    void joinRequested(pyrometer::ui::DocumentId trace, std::optional<std::int64_t> offsetNs);

private:
    void requestJoin();
    void showStatus();

    Workspace *m_workspace;
    QComboBox *m_traces;
    QLineEdit *m_offset;
    QPushButton *m_join;
    QLabel *m_status;
    QString m_statusText;
    bool m_joined = false;
};

} // namespace pyrometer::ui
