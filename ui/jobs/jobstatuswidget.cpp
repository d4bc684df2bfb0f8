#include "ui/jobs/jobstatuswidget.h"

#include "ui/jobs/jobtracker.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

namespace pyrometer::ui {

JobStatusWidget::JobStatusWidget(JobTracker *tracker, QWidget *parent)
    : QWidget(parent), m_tracker(tracker), m_label(new QLabel(this)), m_bar(new QProgressBar(this)),
      m_cancel(new QToolButton(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addWidget(m_cancel);
    m_bar->setFixedWidth(160);
    m_bar->setTextVisible(false);
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop the running background jobs (jobs still waiting start next)"));
    m_cancel->setAutoRaise(true);

    connect(m_cancel, &QToolButton::clicked, tracker, &JobTracker::cancelRunning);
    connect(tracker, &JobTracker::started, this, &JobStatusWidget::refresh);
    connect(tracker, &JobTracker::progressChanged, this, &JobStatusWidget::refresh);
    connect(tracker, &JobTracker::finished, this, &JobStatusWidget::refresh);
    refresh();
}

QString JobStatusWidget::text() const
{
    return m_label->text();
}

void JobStatusWidget::refresh()
{
    const auto jobs = m_tracker->activeJobs();
    setVisible(!jobs.isEmpty());
    if (jobs.isEmpty()) {
        m_label->clear();
        return;
    }
    const auto first = jobs.front();
    QString text = m_tracker->title(first);
    if (jobs.size() > 1)
        text += tr(" (+%1 more)").arg(jobs.size() - 1);
    m_label->setText(text);
    const int permille = m_tracker->progress(first);
    if (permille < 0) {
        m_bar->setRange(0, 0); // busy indicator until the job reports progress
    } else {
        m_bar->setRange(0, 1000);
        m_bar->setValue(permille);
    }
}

} // namespace pyrometer::ui
