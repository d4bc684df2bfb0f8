#include "core/util/version.h"
#include "ui/record/recordsettings.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/pages.h"
#include "ui/shell/screenshot.h"
#include "ui/timeline/renderbenchmark.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QIcon>
#include <QSettings>
#include <QStandardPaths>

#include <cstdio>

using namespace pyrometer;

namespace {

int fail(const QString &message)
{
    std::fprintf(stderr, "pyrometer: %s\n", qPrintable(message));
    return 2;
}

struct Options {
    QCommandLineOption demo{QStringLiteral("demo"), QStringLiteral("Open the bundled demo trace and model.")};
    QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QStringLiteral("Open the inputs (the demo when none), wait for every load to finish, save the window "
                       "as a PNG to FILE and exit: 0 on success, 1 if anything failed."),
        QStringLiteral("FILE")};
    QCommandLineOption view{QStringLiteral("view"), QStringLiteral("Page to show: %1.").arg(ui::pageNames()),
                            QStringLiteral("PAGE")};
    QCommandLineOption job{QStringLiteral("job"),
                           QStringLiteral("Open the inputs as one distributed job: a folder of rank traces, or "
                                          "the rank trace files (shown on the Distributed page).")};
    QCommandLineOption renderBenchmark{
        QStringLiteral("render-benchmark"),
        QStringLiteral("Load TRACE, render the timeline offscreen at 1920x1080 through a fixed zoom and pan "
                       "sequence, print per-frame figures as JSON and exit."),
        QStringLiteral("TRACE")};
    QCommandLineOption run{QStringLiteral("run"),
                           QStringLiteral("With --view model or compare: once everything is open, run the "
                                          "page's profile or compare of the open model (or, on compare with two "
                                          "traces and no model, compare the traces; before the screenshot, with "
                                          "--screenshot).")};
    QCommandLineOption python{QStringLiteral("python"),
                              QStringLiteral("The Python interpreter with torch that runs .pt2 programs, model.py "
                                             "factories and Record (a venv's or conda's python); remembered as "
                                             "Edit > Preferences > Python's choice."),
                              QStringLiteral("PATH")};
    QCommandLineOption input{QStringLiteral("input"),
                             QStringLiteral("Input shapes for --run, as 8x3x224x224 (default: those the model "
                                            "records)."),
                             QStringLiteral("SHAPES")};
};

void describe(QCommandLineParser &parser, const Options &options)
{
    QCoreApplication::setOrganizationName(QStringLiteral("Pyrometer"));
    QCoreApplication::setApplicationName(QStringLiteral("Pyrometer"));
    QCoreApplication::setApplicationVersion(QLatin1String(kVersion));
    parser.setApplicationDescription(
        QStringLiteral("Pyrometer: open torch.profiler traces, profile models (TorchScript, .pt2, model.py:build), compare runs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("inputs"),
                                 QStringLiteral("Trace files (.json, .json.gz), TensorBoard log directories, "
                                                "models (.pt, .pt2, model.py:build) or sessions (.pyrometer) to open."),
                                 QStringLiteral("[FILE|DIR|MODEL...]"));
    parser.addOptions({options.demo, options.screenshot, options.view, options.job, options.run, options.input,
                       options.python, options.renderBenchmark});
}

// --help and --version print and exit: they need no display.
bool onlyAsksForHelp(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "-?" || arg == "--help-all" || arg == "-v" || arg == "--version")
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    const Options options;
    if (onlyAsksForHelp(argc, argv)) {
        QCoreApplication core(argc, argv);
        QCommandLineParser parser;
        describe(parser, options);
        parser.process(core); // prints and exits
        return 0;
    }
    QApplication app(argc, argv);
    QApplication::setDesktopFileName(QStringLiteral("io.github.pyrometer.Pyrometer"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/pyrometer.svg")));
    QCommandLineParser parser;
    describe(parser, options);
    const auto &[demo, screenshot, view, job, renderBenchmark, run, python, input] = options;
    parser.process(app);
    if (parser.isSet(renderBenchmark))
        return ui::timeline::runRenderBenchmark(parser.value(renderBenchmark), stdout);
    if (parser.isSet(python)) {
        // A name (python3) is looked up on the PATH; a path must be an executable file.
        const auto interpreter = parser.value(python);
        const bool found = interpreter.contains(QLatin1Char('/'))
                               ? QFileInfo(interpreter).isExecutable()
                               : !QStandardPaths::findExecutable(interpreter).isEmpty();
        if (!found)
            return fail(QStringLiteral("--python %1: no such interpreter").arg(interpreter));
        QSettings settings;
        ui::choosePython(settings, interpreter);
    }

    std::optional<ui::Page> page;
    if (parser.isSet(view)) {
        page = ui::pageFromName(parser.value(view));
        if (!page)
            return fail(QStringLiteral("unknown view '%1' (expected %2)").arg(parser.value(view), ui::pageNames()));
    }

    ui::MainWindow window;
    const bool screenshotMode = parser.isSet(screenshot);
    const QStringList inputs = parser.positionalArguments();
    const bool asJob = parser.isSet(job);
    if (asJob && inputs.isEmpty())
        return fail(QStringLiteral("--job needs a folder of rank traces or the rank trace files"));
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
    if (asJob)
        window.openJob(inputs);
    else
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
