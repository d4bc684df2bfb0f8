// Opening and closing a trace in the window: what it costs in memory and whether closing gives
// it back. The window is made, and the bundled demo (a small trace and model) opened on every
// page and closed: what the process keeps from then on (fonts, styles, libtorch, thread pools,
// the pages' first content) is the window's, not a trace's. Then, per cycle, the trace is
// opened, every page shown and computed, and everything closed.
//   document_bench TRACE [CYCLES]
// Prints per cycle: load time, RSS before opening, with the trace open on every page, and after
// closing, and the ratio after / before (the target: within 10%).
#include "rss.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/mainwindow.h"
#include "ui/workspace/workspace.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTest>

#include <cstdio>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

bool waitIdle(MainWindow &window)
{
    return QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 600'000);
}

// Every page shown and painted, its jobs done.
void showEveryPage(MainWindow &window)
{
    for (const auto page : kAllPages) {
        window.showPage(page);
        waitIdle(window);
        QTest::qWait(50); // paint
    }
}

// Settled: deferred deletes run and the heap trimmed once jobs are over.
double settledRssMb()
{
    QTest::qWait(300);
    return bench::currentRssMb();
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: document_bench TRACE [CYCLES]\n");
        return 2;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QString trace = QString::fromLocal8Bit(argv[1]);
    const int cycles = argc > 2 ? std::atoi(argv[2]) : 2;

    MainWindow window;
    window.setInteractive(false);
    window.resize(1600, 1000);
    window.show();
    showEveryPage(window);
    window.openDemo();
    waitIdle(window);
    showEveryPage(window);
    window.workspace()->closeAll();
    waitIdle(window);
    const double fileMb = double(QFileInfo(trace).size()) / (1024.0 * 1024.0);
    std::printf("trace %s, %.0f MB\n", qPrintable(QFileInfo(trace).fileName()), fileMb);
    std::printf("cycle  load_s  rss_before_MB  rss_open_MB  rss_closed_MB  closed/before\n");
    for (int cycle = 1; cycle <= cycles; ++cycle) {
        const double before = settledRssMb();
        QElapsedTimer clock;
        clock.start();
        window.openPaths({trace});
        if (!waitIdle(window) || window.workspace()->traces().empty()) {
            std::fprintf(stderr, "document_bench: %s did not open\n", qPrintable(trace));
            return 2;
        }
        const double loadSeconds = double(clock.nsecsElapsed()) / 1e9;
        showEveryPage(window);
        const double open = settledRssMb();
        window.workspace()->closeAll();
        waitIdle(window);
        const double closed = settledRssMb();
        std::printf("%5d  %6.2f  %13.0f  %11.0f  %13.0f  %13.3f\n", cycle, loadSeconds, before, open, closed, closed / before);
        std::fflush(stdout);
    }
    std::printf("peak RSS %.0f MB\n", bench::peakRssMb());
    return 0;
}
