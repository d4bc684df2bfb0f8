#pragma once
// What the Compare page's end-to-end tests share: waiting for their jobs, and where their
// screenshots go.
#include <QDir>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include "ui/jobs/jobtracker.h"

namespace pyrometer::ui::testing {

inline bool waitIdle(JobTracker &jobs, int ms = 120'000)
{
    return QTest::qWaitFor([&] { return jobs.isIdle(); }, ms);
}

// Where the screenshots go: $PYROMETER_SCREENSHOT_DIR to keep them, else a folder of this run.
inline QString screenshotPath(const QString &name)
{
    static QTemporaryDir scratch;
    const auto kept = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR");
    return QDir(kept.isEmpty() ? scratch.path() : kept).filePath(QStringLiteral("pyrometer-%1.png").arg(name));
}

} // namespace pyrometer::ui::testing
