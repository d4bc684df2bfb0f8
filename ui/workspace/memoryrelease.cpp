#include "ui/workspace/memoryrelease.h"

#include "core/util/heap.h"
#include "ui/jobs/jobtracker.h"

#include <QTimer>

namespace pyrometer::ui {

void releaseFreedMemoryLater(JobTracker *jobs)
{
    QTimer::singleShot(0, jobs, [jobs] {
        if (jobs->isIdle())
            releaseFreedMemory();
        else
            QObject::connect(jobs, &JobTracker::becameIdle, jobs, &releaseFreedMemory, Qt::SingleShotConnection);
    });
}

} // namespace pyrometer::ui
