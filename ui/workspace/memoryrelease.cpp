#include "ui/workspace/memoryrelease.h"

#include "ui/jobs/jobtracker.h"

#include <QTimer>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pyrometer::ui {

void releaseFreedMemory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

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
