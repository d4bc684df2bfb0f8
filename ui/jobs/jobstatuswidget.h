#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace pyrometer::ui {

class JobTracker;

// The status bar's view of background jobs: the oldest running job's title, its progress
// (busy until the job reports any), how many more are queued, and a Cancel button that
// stops them all. Hidden while nothing runs.
class JobStatusWidget final : public QWidget {
    Q_OBJECT
public:
    explicit JobStatusWidget(JobTracker *tracker, QWidget *parent = nullptr);

    QString text() const;
    QProgressBar *progressBar() const { return m_bar; }
    QToolButton *cancelButton() const { return m_cancel; }

private:
    void refresh();

    JobTracker *m_tracker;
    QLabel *m_label;
    QProgressBar *m_bar;
    QToolButton *m_cancel;
};

} // namespace pyrometer::ui
