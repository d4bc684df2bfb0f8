#include "core/util/version.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/screenshot.h"
#include "ui/timeline/renderbenchmark.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstdio>

using namespace pyrometer;

namespace {

int fail(const QString &message)
{
    std::fprintf(stderr, "pyrometer: %s\n", qPrintable(message));
    return 2;
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Pyrometer"));
    QApplication::setApplicationName(QStringLiteral("Pyrometer"));
    QApplication::setApplicationVersion(QLatin1String(kVersion));
    QApplication::setDesktopFileName(QStringLiteral("io.github.pyrometer.Pyrometer"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/pyrometer.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Pyrometer: open torch.profiler traces, profile TorchScript models, compare runs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("inputs"),
                                 QStringLiteral("Trace files (.json, .json.gz), TensorBoard log directories, "
                                                "TorchScript models (.pt) or sessions (.pyrometer) to open."),
                                 QStringLiteral("[FILE|DIR|MODEL.pt...]"));
    const QCommandLineOption demo(QStringLiteral("demo"), QStringLiteral("Open the bundled demo trace and model."));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Open the inputs (the demo when none), wait for every load to finish, save the window "
                       "as a PNG to FILE and exit: 0 on success, 1 if anything failed."),
        QStringLiteral("FILE"));
    const QCommandLineOption view(QStringLiteral("view"),
                                  QStringLiteral("Page to show: overview, timeline, flamegraph, operators, memory, "
                                                 "model or compare."),
                                  QStringLiteral("PAGE"));
    const QCommandLineOption renderBenchmark(
        QStringLiteral("render-benchmark"),
        QStringLiteral("Load TRACE, render the timeline offscreen at 1920x1080 through a fixed zoom and pan "
                       "sequence, print per-frame figures as JSON and exit."),
        QStringLiteral("TRACE"));
    const QCommandLineOption run(QStringLiteral("run"),
                                 QStringLiteral("With --view model or compare: once everything is open, run the "
                                                "page's profile or compare of the open model (before the "
                                                "screenshot, with --screenshot)."));
    const QCommandLineOption input(QStringLiteral("input"),
                                   QStringLiteral("Input shapes for --run, as 8x3x224x224 (default: those the model "
                                                  "records)."),
                                   QStringLiteral("SHAPES"));
    parser.addOptions({demo, screenshot, view, run, input, renderBenchmark});
    parser.process(app);
    if (parser.isSet(renderBenchmark))
        return ui::timeline::runRenderBenchmark(parser.value(renderBenchmark), stdout);

    std::optional<ui::Page> page;
    if (parser.isSet(view)) {
        page = ui::pageFromName(parser.value(view));
        if (!page)
            return fail(QStringLiteral("unknown view '%1' (expected overview, timeline, flamegraph, operators, "
                                       "memory, model or compare)").arg(parser.value(view)));
    }

    ui::MainWindow window;
    const bool screenshotMode = parser.isSet(screenshot);
    const QStringList inputs = parser.positionalArguments();
    if (screenshotMode) {
        window.setInteractive(false);
        window.resize(1280, 800);
    } else {
        window.enableCrashRecovery();
    }
    if (page)
        window.showPage(*page);
    window.show();

    if (parser.isSet(demo) || (screenshotMode && inputs.isEmpty()))
        window.openDemo();
    window.openPaths(inputs);

    const auto grab = [&] {
        ui::screenshotWhenIdle(&window, page.value_or(ui::Page::Overview), parser.value(screenshot),
                               [](int code, const QString &message) {
                                   if (!message.isEmpty())
                                       std::fprintf(stderr, "pyrometer: %s\n", qPrintable(message));
                                   QApplication::exit(code);
                               });
    };
    if (parser.isSet(run)) {
        ui::whenIdle(&window, [&] {
            const QString why = ui::startPageRun(&window, page.value_or(ui::Page::Overview), parser.value(input));
            if (!why.isEmpty()) {
                std::fprintf(stderr, "pyrometer: --run: %s\n", qPrintable(why));
                if (screenshotMode)
                    QApplication::exit(2);
                return;
            }
            if (screenshotMode)
                grab();
        });
    } else if (screenshotMode) {
        grab();
    }
    return QApplication::exec();
}
