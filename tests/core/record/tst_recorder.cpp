#include "core/record/memorycategories.h"
#include "core/record/recorder.h"
#include "core/trace/loader.h"
#include "recordtestutil.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <csignal>
#include <thread>

using namespace pyrometer;
using namespace pyrometer::record;
using namespace pyrometer::record::testing;

namespace {

// The figures a fixture program prints of itself: "figures: {json}".
nlohmann::json programFigures(const std::string &output)
{
    const auto at = output.rfind("figures: ");
    if (at == std::string::npos)
        return {};
    const auto end = output.find('\n', at);
    return nlohmann::json::parse(output.substr(at + 9, end - at - 9), nullptr, false);
}

// The N of each ProfilerStep#N slice.
std::set<int> profilerSteps(const trace::Trace &trace)
{
    std::set<int> steps;
    for (const auto &track : trace.tracks)
        for (const auto name : track.eventName)
            if (const auto text = trace.string(name); text.starts_with("ProfilerStep#"))
                steps.insert(std::stoi(std::string(text.substr(13))));
    return steps;
}

// Debian's interpreter with -S: no site-packages, so no torch.
std::string pythonWithoutTorch(const QTemporaryDir &dir)
{
    const auto python = dir.filePath("python-without-torch");
    QFile file(python);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(python));
    file.write(QByteArray("#!/bin/sh\nexec ") + kPython.c_str() + " -S \"$@\"\n");
    file.close();
    file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    return python.toStdString();
}

} // namespace

class TestRecorder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void memoryFileNames();
    void memoryFileErrorsNameTheFile();
    void memoryPeakPrefersRecordedSamples();
    void launcherCommandCarriesTheOptions();
    void launcherIsFound();
    void probeFindsTorch();
    void probeWithoutTorchNamesTheInterpreter();
    void trainingLoopStepsAndMemory();
    void inferenceLoopMarksForwardCalls();
    void endsTheProgramAfterTheRecord();
    void runsAModule();
    void recordsATimeWindow();
    void scriptThatRaises();
    void raisingInTheFirstRecordedStepKeepsNothing();
    void programsOwnExitStatusIsNotTheLaunchers();
    void raisingAfterARecordKeepsTheTraceAndSaysSo();
    void outcomeIsClassifiedByTheLaunchersEvent_data();
    void outcomeIsClassifiedByTheLaunchersEvent();
    void programWithoutSteps();
    void missingScript();
    void interpreterWithoutTorch();
    void interpreterThatCannotStart();
    void killedProgram();
};

void TestRecorder::memoryFileNames()
{
    QCOMPARE(memoryFileFor("/logs/run/host_12.345.pt.trace.json.gz"),
             std::filesystem::path("/logs/run/host_12.345.pt.memory.json"));
    QCOMPARE(memoryFileFor("host_12.345.pt.trace.json"), std::filesystem::path("host_12.345.pt.memory.json"));
    QVERIFY(memoryFileFor("/logs/trace.json").empty());
}

void TestRecorder::memoryFileErrorsNameTheFile()
{
    QTemporaryDir dir;
    const auto write = [&](const char *name, const QByteArray &text) {
        QFile file(dir.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
    };
    write("broken.pt.memory.json", "{\"format\": 1, \"categ");
    write("short.pt.memory.json",
          R"({"format": 1, "categories": ["parameters", "other"], "samples": [{"t": 0, "bytes": [1]}]})");
    write("reordered.pt.memory.json",
          R"({"format": 1, "source": "launcher", "categories": ["other", "parameters", "mystery"],
              "samples": [{"t": 0.5, "step": 2, "phase": "step_end", "recorded": true, "bytes": [10, 20, 5]}]})");
    const auto broken = loadMemoryCategories(dir.filePath("broken.pt.memory.json").toStdString());
    QVERIFY(!broken);
    QVERIFY(broken.error().message.find("broken.pt.memory.json") != std::string::npos);
    const auto shortOne = loadMemoryCategories(dir.filePath("short.pt.memory.json").toStdString());
    QVERIFY(!shortOne);
    QVERIFY(shortOne.error().message.find("short.pt.memory.json: sample 0") != std::string::npos);
    QVERIFY(!loadMemoryCategories(dir.filePath("missing.pt.memory.json").toStdString()));
    // Columns are mapped by name; an unknown one counts as other.
    const auto reordered = loadMemoryCategories(dir.filePath("reordered.pt.memory.json").toStdString());
    QVERIFY(reordered);
    QCOMPARE(reordered->samples.size(), std::size_t(1));
    QCOMPARE(reordered->samples[0].bytes[std::size_t(MemoryCategory::Parameters)], 20);
    QCOMPARE(reordered->samples[0].bytes[std::size_t(MemoryCategory::Other)], 15);
    QCOMPARE(reordered->samples[0].total(), 35);
}

void TestRecorder::memoryPeakPrefersRecordedSamples()
{
    MemoryCategories categories;
    const auto sample = [](bool recorded, std::int64_t parameters, std::int64_t activations) {
        MemorySample s;
        s.recorded = recorded;
        s.bytes[std::size_t(MemoryCategory::Parameters)] = parameters;
        s.bytes[std::size_t(MemoryCategory::Activations)] = activations;
        return s;
    };
    categories.samples = {sample(false, 10, 1000), sample(true, 10, 50), sample(true, 10, 70), sample(true, 10, 20)};
    const auto peak = memoryPeak(categories);
    QCOMPARE(peak.index, std::size_t(2));
    QCOMPARE(peak.sample.total(), 80);
    QCOMPARE(categoryMaxima(categories)[std::size_t(MemoryCategory::Activations)], 70);
    QVERIFY(!memoryPeak(MemoryCategories{}).found());
}

void TestRecorder::launcherCommandCarriesTheOptions()
{
    RecordOptions options;
    options.python = "/opt/venv/bin/python";
    options.script = "pkg.train";
    options.asModule = true;
    options.arguments = {"--epochs", "2"};
    options.outputDirectory = "/tmp/logs";
    options.mark = StepMark::Forward;
    options.steps = 7;
    options.cuda = true;
    options.withStack = true;
    options.recordShapes = false;
    const auto command = launcherCommand("/usr/share/pyrometer/recorder/pyrometer_record.py", options);
    QCOMPARE(command.front(), std::string("/opt/venv/bin/python"));
    const auto has = [&](std::vector<std::string> run) {
        return std::search(command.begin(), command.end(), run.begin(), run.end()) != command.end();
    };
    QVERIFY(has({"--mark", "forward"}));
    QVERIFY(has({"--steps", "7"}));
    QVERIFY(has({"--activities", "cpu,cuda"}));
    QVERIFY(has({"--with-stack"}));
    QVERIFY(!has({"--record-shapes"}));
    QVERIFY(has({"--", "-m", "pkg.train", "--epochs", "2"}));
    QCOMPARE(command.back(), std::string("2"));
    QVERIFY(parseStepMark("optimizer"));
    QCOMPARE(parseStepMark("time").value(), StepMark::Time);
    QVERIFY(!parseStepMark("epoch"));
    QCOMPARE(parseEnvironmentEntry("OMP_NUM_THREADS=4"), (std::pair<std::string, std::string>{"OMP_NUM_THREADS", "4"}));
    QCOMPARE(parseEnvironmentEntry("OPTS=a=b"), (std::pair<std::string, std::string>{"OPTS", "a=b"}));
    QCOMPARE(parseEnvironmentEntry("EMPTY="), (std::pair<std::string, std::string>{"EMPTY", ""}));
    QVERIFY(!parseEnvironmentEntry("=value"));
    QVERIFY(!parseEnvironmentEntry("NAME"));
}

void TestRecorder::launcherIsFound()
{
    // Where it was built from, when nothing else is there.
    const auto found = findLauncher();
    QVERIFY2(found, found ? "" : found.error().message.c_str());
    QCOMPARE(found.value().filename(), std::filesystem::path("pyrometer_record.py"));
    // $PYROMETER_RECORDER first.
    QTemporaryDir dir;
    const auto copy = dir.filePath("pyrometer_record.py");
    QVERIFY(QFile::copy(QString::fromStdString(found.value().string()), copy));
    qputenv("PYROMETER_RECORDER", copy.toUtf8());
    const auto chosen = findLauncher();
    qunsetenv("PYROMETER_RECORDER");
    QVERIFY(chosen);
    QCOMPARE(chosen.value(), std::filesystem::path(copy.toStdString()));
}

void TestRecorder::probeFindsTorch()
{
    const auto info = probeInterpreter(kPython);
    QVERIFY2(info, info ? "" : info.error().message.c_str());
    QVERIFY(!info->torchVersion.empty());
    QVERIFY(!info->executable.empty());
    // Debian's torch 1.13: no global optimizer hook, no memory timeline.
    QCOMPARE(info->optimizerHook, info->torchVersion.rfind("1.", 0) != 0);
    QCOMPARE(info->memoryTimeline, info->torchVersion.rfind("1.", 0) != 0 && info->torchVersion.rfind("2.0", 0) != 0);
}

void TestRecorder::probeWithoutTorchNamesTheInterpreter()
{
    QTemporaryDir dir;
    const auto python = pythonWithoutTorch(dir);
    const auto info = probeInterpreter(python);
    QVERIFY(!info);
    QVERIFY2(info.error().message.find(python + " has no usable torch") == 0, info.error().message.c_str());
    QVERIFY(info.error().message.find("torch") != std::string::npos);
}

void TestRecorder::trainingLoopStepsAndMemory()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "train_cnn.py");
    options.arguments = {"8"};
    options.keepRunning = true; // the script runs to its end and prints its figures
    const auto run = recordRun(options);
    const auto &outcome = run.outcome;
    QVERIFY2(outcome.failure == RecordFailure::None, outcome.message.c_str());
    QCOMPARE(outcome.exit.exitCode, 0);
    QCOMPARE(outcome.steps, 8);
    QCOMPARE(outcome.recorded, 3);
    QCOMPARE(outcome.asked, 3);
    QVERIFY(outcome.interpreter && !outcome.interpreter->torchVersion.empty());
    // Progress went up one step at a time to 3 of 3 recorded.
    QVERIFY(!run.progress.empty());
    QCOMPARE(run.progress.back().recorded, 3);
    QCOMPARE(run.progress.back().asked, 3);
    for (std::size_t i = 1; i < run.progress.size(); ++i)
        QVERIFY(run.progress[i].steps >= run.progress[i - 1].steps);

    // One trace in the TensorBoard layout: <host>_<pid>.<ns>.pt.trace.json.gz
    QCOMPARE(outcome.traces.size(), std::size_t(1));
    const auto tracePath = outcome.traces.front();
    QCOMPARE(tracePath.parent_path(), std::filesystem::path(dir.path().toStdString()));
    QVERIFY(tracePath.filename().string().ends_with(".pt.trace.json.gz"));
    QVERIFY(tracePath.filename().string().find('_') != std::string::npos);
    const auto trace = trace::loadTrace(tracePath);
    QVERIFY2(trace, trace ? "" : trace.error().message.c_str());
    QCOMPARE(countSlices(*trace.value(), "ProfilerStep#"), 3);
    QCOMPARE(countSlices(*trace.value(), "Optimizer.step#Adam.step"), 3);

    // Memory by category against the script's own numbers.
    const auto figures = programFigures(run.output);
    QVERIFY2(figures.is_object(), run.output.c_str());
    const std::int64_t parameterBytes = figures["parameter_bytes"];
    QCOMPARE(std::int64_t(figures["moment_bytes"]), 2 * parameterBytes); // Adam: two moments per weight
    QCOMPARE(outcome.memoryFiles.size(), std::size_t(1));
    QCOMPARE(outcome.memoryFiles.front(), memoryFileFor(tracePath));
    const auto memory = loadMemoryCategories(outcome.memoryFiles.front());
    QVERIFY2(memory, memory ? "" : memory.error().message.c_str());
    QCOMPARE(memory->source, std::string("launcher"));
    QVERIFY(!memory->resolution.empty());
    // 3 samples a step (forward start, forward end, step end) for each step up to the record's end.
    QVERIFY(memory->samples.size() >= std::size_t(3 * 5));
    const auto peak = memoryPeak(memory.value());
    QVERIFY(peak.found());
    QVERIFY(peak.sample.recorded);
    // Every recorded sample names its step as the trace does (torch 1.x numbers ProfilerStep#N
    // from the step before, torch 2.x from its own): the Memory page and the Overview agree.
    const auto steps = profilerSteps(*trace.value());
    QCOMPARE(int(steps.size()), 3);
    for (const auto &sample : memory->samples)
        if (sample.recorded)
            QVERIFY2(steps.count(sample.profilerStep) == 1, std::to_string(sample.profilerStep).c_str());
    const auto place = memorySamplePlace(peak.sample);
    QVERIFY2(place == "ProfilerStep#" + std::to_string(peak.sample.profilerStep) + ", forward end", place.c_str());
    const auto at = [&](MemoryCategory category) { return peak.sample.bytes[std::size_t(category)]; };
    QCOMPARE(at(MemoryCategory::Parameters), parameterBytes);
    // Gradients: each step ends holding one per parameter. The program's zero_grad() then decides
    // whether they are held through the next forward, whose end is the peak: torch 1.x's zeroes
    // them in place (held), torch 2.x's sets them to None (set_to_none=True is its default since
    // 2.0), so they are freed until backward makes them anew. Both are what the program holds;
    // the peak has the gradients of its own forward's start.
    const bool torch1 = outcome.interpreter->torchVersion.starts_with("1.");
    const std::int64_t heldThroughForward = torch1 ? parameterBytes : 0;
    const auto forwardStart = std::find_if(memory->samples.begin(), memory->samples.end(), [&](const auto &sample) {
        return sample.step == peak.sample.step && sample.phase == "forward_start";
    });
    QVERIFY(peak.sample.phase == "forward_end" && forwardStart != memory->samples.end());
    QCOMPARE(forwardStart->bytes[std::size_t(MemoryCategory::Gradients)], heldThroughForward);
    QCOMPARE(at(MemoryCategory::Gradients), heldThroughForward);
    QCOMPARE(at(MemoryCategory::OptimizerState), std::int64_t(figures["optimizer_state_bytes"]));
    // The state beyond the two moments is Adam's step counter: one float32 scalar per tensor.
    QCOMPARE(at(MemoryCategory::OptimizerState) - 2 * parameterBytes, 4 * std::int64_t(figures["parameter_tensors"]));
    QCOMPARE(at(MemoryCategory::Inputs), std::int64_t(8 * 3 * 32 * 32 * 4));
    QVERIFY(at(MemoryCategory::Activations) > 0); // the peak is at a forward's end
    for (const auto &sample : memory->samples) {
        QCOMPARE(sample.bytes[std::size_t(MemoryCategory::Parameters)], parameterBytes);
        if (sample.phase == "step_end") {
            QCOMPARE(sample.bytes[std::size_t(MemoryCategory::Activations)], 0);
            QCOMPARE(sample.bytes[std::size_t(MemoryCategory::Gradients)], parameterBytes);
        }
    }
}

void TestRecorder::inferenceLoopMarksForwardCalls()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "infer_loop.py");
    options.arguments = {"9"};
    options.keepRunning = true;
    const auto run = recordRun(options);
    const auto &outcome = run.outcome;
    QVERIFY2(outcome.failure == RecordFailure::None, outcome.message.c_str());
    // Nine calls of the model; the softmax module has no parameters and marks nothing.
    QCOMPARE(outcome.steps, 9);
    QCOMPARE(outcome.recorded, 3);
    QCOMPARE(outcome.traces.size(), std::size_t(1));
    const auto trace = trace::loadTrace(outcome.traces.front());
    QVERIFY(trace);
    QCOMPARE(countSlices(*trace.value(), "ProfilerStep#"), 3);
    QCOMPARE(countSlices(*trace.value(), "Optimizer."), 0);
    const auto figures = programFigures(run.output);
    QVERIFY(figures.is_object());
    const auto memory = loadMemoryCategories(outcome.memoryFiles.front());
    QVERIFY(memory);
    const auto maxima = categoryMaxima(memory.value());
    QCOMPARE(maxima[std::size_t(MemoryCategory::Parameters)], std::int64_t(figures["parameter_bytes"]));
    QCOMPARE(maxima[std::size_t(MemoryCategory::Inputs)], std::int64_t(figures["input_bytes"]));
    QCOMPARE(maxima[std::size_t(MemoryCategory::Gradients)], 0);
    QCOMPARE(maxima[std::size_t(MemoryCategory::OptimizerState)], 0);
}

void TestRecorder::endsTheProgramAfterTheRecord()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "slow_loop.py");
    options.skip = 0;
    options.warmup = 0;
    options.steps = 2;
    const auto run = recordRun(options);
    const auto &outcome = run.outcome;
    QVERIFY2(outcome.failure == RecordFailure::None, outcome.message.c_str());
    QCOMPARE(outcome.exit.exitCode, 0);
    QCOMPARE(outcome.recorded, 2);
    QCOMPARE(outcome.traces.size(), std::size_t(1));
    // The loop would run 100000 steps: it ended in its second optimizer step, before printing it.
    QCOMPARE(outcome.steps, 2);
    QVERIFY(run.output.find("step 0\n") != std::string::npos);
    QVERIFY(run.output.find("step 1\n") == std::string::npos);
}

void TestRecorder::runsAModule()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "infer_loop.py");
    // python -m infer_loop 6, run from the folder that holds it, as a user would.
    options.asModule = true;
    options.script = "infer_loop";
    options.arguments = {"6"};
    options.workingDirectory = std::string(PYROMETER_FIXTURES_DIR) + "/programs";
    options.keepRunning = true;
    const auto run = recordRun(options);
    QVERIFY2(run.outcome.failure == RecordFailure::None, run.outcome.message.c_str());
    QCOMPARE(run.outcome.steps, 6);
    QCOMPARE(run.outcome.traces.size(), std::size_t(1));
    QVERIFY(run.output.find("call 5 top") != std::string::npos);
}

void TestRecorder::recordsATimeWindow()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "slow_loop.py");
    options.mark = StepMark::Time;
    options.delaySeconds = 0.3;
    options.durationSeconds = 0.6; // about six steps of 0.1 s
    const auto run = recordRun(options);
    const auto &outcome = run.outcome;
    QVERIFY2(outcome.failure == RecordFailure::None, outcome.message.c_str());
    QCOMPARE(outcome.traces.size(), std::size_t(1));
    QCOMPARE(outcome.exit.exitCode, 0);
    const auto trace = trace::loadTrace(outcome.traces.front());
    QVERIFY(trace);
    // No step marks in a window: the optimizer's own slices show what ran in it.
    QCOMPARE(countSlices(*trace.value(), "ProfilerStep#"), 0);
    const int steps = countSlices(*trace.value(), "Optimizer.step#SGD.step");
    QVERIFY2(steps >= 2 && steps <= 12, std::to_string(steps).c_str());
}

void TestRecorder::scriptThatRaises()
{
    QTemporaryDir dir;
    const auto run = recordRun(optionsFor(dir, "raises.py"));
    const auto &outcome = run.outcome;
    QCOMPARE(outcome.failure, RecordFailure::RaisedBeforeStep);
    QVERIFY(outcome.traces.empty());
    QVERIFY2(outcome.message.find("raises.py raised before a step was recorded") != std::string::npos,
             outcome.message.c_str());
    QVERIFY2(outcome.message.find("ValueError: the data set at ./data is empty") != std::string::npos,
             outcome.message.c_str());
    // The program's own output and its traceback are kept for the message.
    QVERIFY(run.output.find("loading the data set") != std::string::npos);
    const auto report = failureReport(outcome);
    QVERIFY2(report.find("Traceback") != std::string::npos || report.find("ValueError") != std::string::npos,
             report.c_str());
    QVERIFY(report.find("last output:") != std::string::npos);
}

void TestRecorder::raisingInTheFirstRecordedStepKeepsNothing()
{
    // Skip 1, warm-up 1: two steps taken, the third (the first recorded) raises.
    QTemporaryDir dir;
    auto options = optionsFor(dir, "fails_after.py");
    options.arguments = {"2", "raise"};
    const auto run = recordRun(options);
    const auto &outcome = run.outcome;
    QCOMPARE(outcome.failure, RecordFailure::RaisedBeforeStep);
    QCOMPARE(outcome.steps, 2);
    QCOMPARE(outcome.recorded, 0);
    QVERIFY(outcome.traces.empty());
    QVERIFY2(outcome.message.find("fails_after.py raised before a step was recorded: RuntimeError: the batch after "
                                  "call 2 is broken (after 2 steps)") != std::string::npos,
             outcome.message.c_str());
    // No trace of a part of a step is left behind.
    QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
    QVERIFY(failureReport(outcome).find("last output:") != std::string::npos);
}

void TestRecorder::programsOwnExitStatusIsNotTheLaunchers()
{
    // 3 is the launcher's status for no torch: the program's own reads as its own.
    QTemporaryDir dir;
    auto options = optionsFor(dir, "fails_after.py");
    options.arguments = {"0", "3"};
    const auto run = recordRun(options);
    QCOMPARE(run.outcome.exit.exitCode, 3);
    QCOMPARE(run.outcome.failure, RecordFailure::ExitedBeforeTrace);
    QVERIFY2(run.outcome.message.find("/fails_after.py: the program exited with status 3 after 0 steps") !=
                 std::string::npos,
             run.outcome.message.c_str());
    QVERIFY(run.outcome.message.find("torch") == std::string::npos);
}

void TestRecorder::raisingAfterARecordKeepsTheTraceAndSaysSo()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "fails_after.py");
    options.arguments = {"4", "raise"};
    options.skip = 0;
    options.warmup = 0;
    options.steps = 10;
    const auto run = recordRun(options);
    const auto &outcome = run.outcome;
    QCOMPARE(outcome.failure, RecordFailure::None);
    QCOMPARE(outcome.traces.size(), std::size_t(1));
    QCOMPARE(outcome.recorded, 4);
    QVERIFY(outcome.programFailed());
    QVERIFY2(outcome.programFailure == options.script +
                                           " raised RuntimeError: the batch after call 4 is broken after 4 of 10 "
                                           "steps were recorded; its trace holds them",
             outcome.programFailure.c_str());
    const auto trace = trace::loadTrace(outcome.traces.front());
    QVERIFY2(trace, trace ? "" : trace.error().message.c_str());
    // The four recorded steps, and (torch 1.13) the one it raised in, which the profiler had begun.
    const int steps = countSlices(*trace.value(), "ProfilerStep#");
    QVERIFY2(steps == 4 || steps == 5, std::to_string(steps).c_str());
}

void TestRecorder::outcomeIsClassifiedByTheLaunchersEvent_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<int>("traces");
    QTest::addColumn<int>("failure");
    QTest::addColumn<QString>("says");
    const auto none = int(RecordFailure::None);
    QTest::addRow("status 3 of its own") << "" << 3 << 0 << int(RecordFailure::ExitedBeforeTrace)
                                         << "train.py: the program exited with status 3 after 2 steps";
    QTest::addRow("no torch, status 3") << "no-torch" << 3 << 0 << int(RecordFailure::NoTorch)
                                        << "python9 has no usable torch: no module";
    QTest::addRow("status 5 of its own") << "" << 5 << 0 << int(RecordFailure::ExitedBeforeTrace)
                                         << "exited with status 5";
    QTest::addRow("status 2 of its own") << "" << 2 << 0 << int(RecordFailure::ExitedBeforeTrace)
                                         << "exited with status 2";
    QTest::addRow("raised, status 1") << "raised" << 1 << 0 << int(RecordFailure::RaisedBeforeStep)
                                      << "train.py raised before a step was recorded: no module (after 2 steps)";
    QTest::addRow("raised after a trace")
        << "raised" << 1 << 1 << none << "train.py raised no module after 1 of 3 steps were recorded";
    QTest::addRow("status 4 after a trace")
        << "" << 4 << 1 << none << "train.py exited with status 4 after 1 of 3 steps were recorded";
    QTest::addRow("ended well") << "" << 0 << 1 << none << "";
}

void TestRecorder::outcomeIsClassifiedByTheLaunchersEvent()
{
    QFETCH(QString, kind);
    QFETCH(int, exitCode);
    QFETCH(int, traces);
    QFETCH(int, failure);
    QFETCH(QString, says);
    RecordOptions options;
    options.python = "python9";
    options.script = "train.py";
    RecordOutcome outcome;
    outcome.steps = 2;
    outcome.recorded = traces;
    outcome.asked = 3;
    outcome.exit.exitCode = exitCode;
    for (int i = 0; i < traces; ++i)
        outcome.traces.emplace_back("run.pt.trace.json.gz");
    const LauncherError error{kind.toStdString(), kind.isEmpty() ? std::string() : std::string("no module")};
    classifyOutcome(outcome, options, error);
    QCOMPARE(int(outcome.failure), failure);
    const auto text = outcome.failure == RecordFailure::None ? outcome.programFailure : outcome.message;
    QVERIFY2(says.isEmpty() ? text.empty() : text.find(says.toStdString()) != std::string::npos, text.c_str());
    QCOMPARE(outcome.programFailed(), exitCode != 0);
}

void TestRecorder::programWithoutSteps()
{
    QTemporaryDir dir;
    const auto run = recordRun(optionsFor(dir, "no_steps.py"));
    QCOMPARE(run.outcome.failure, RecordFailure::NoStep);
    QCOMPARE(run.outcome.steps, 0);
    QVERIFY2(run.outcome.message.find("no_steps.py ended after 0 steps") != std::string::npos,
             run.outcome.message.c_str());
    QVERIFY(run.outcome.message.find("time window") != std::string::npos);
    QVERIFY(run.outcome.traces.empty());
    // A window too short for its skipped and warm-up steps says so.
    QTemporaryDir other;
    auto options = optionsFor(other, "infer_loop.py");
    options.arguments = {"2"};
    options.skip = 3;
    const auto shortRun = recordRun(options);
    QCOMPARE(shortRun.outcome.failure, RecordFailure::NoStep);
    QVERIFY(shortRun.outcome.message.find("ended after 2 steps") != std::string::npos);
    QVERIFY(shortRun.outcome.message.find("fewer skipped") != std::string::npos);
}

void TestRecorder::missingScript()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "no_such_script.py");
    const auto run = recordRun(options);
    QCOMPARE(run.outcome.failure, RecordFailure::NoScript);
    QVERIFY2(run.outcome.message.find("no_such_script.py: no such script") != std::string::npos,
             run.outcome.message.c_str());
}

void TestRecorder::interpreterWithoutTorch()
{
    QTemporaryDir dir;
    const auto python = pythonWithoutTorch(dir);
    auto options = optionsFor(dir, "train_cnn.py");
    options.python = python;
    const auto run = recordRun(options);
    QCOMPARE(run.outcome.failure, RecordFailure::NoTorch);
    QVERIFY2(run.outcome.message.find(python + " has no usable torch") == 0, run.outcome.message.c_str());
    QVERIFY(run.outcome.message.find("No module named 'torch'") != std::string::npos);
}

void TestRecorder::interpreterThatCannotStart()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "train_cnn.py");
    options.python = "/nonexistent/bin/python3";
    const auto run = recordRun(options);
    QCOMPARE(run.outcome.failure, RecordFailure::CannotStart);
    QVERIFY2(run.outcome.message.find("cannot start /nonexistent/bin/python3") == 0, run.outcome.message.c_str());
}

void TestRecorder::killedProgram()
{
    QTemporaryDir dir;
    auto options = optionsFor(dir, "killed.py");
    options.skip = 0;
    options.warmup = 0;
    options.steps = 5;
    const auto run = recordRun(options);
    QCOMPARE(run.outcome.failure, RecordFailure::Killed);
    QCOMPARE(run.outcome.exit.signal, SIGKILL);
    QVERIFY2(run.outcome.message.find("killed.py was killed by SIGKILL after 2 steps") != std::string::npos,
             run.outcome.message.c_str());
    // Its last output is kept (stdout and stderr arrive through two pipes, in either order).
    const auto &lines = run.outcome.lastLines;
    QVERIFY(std::any_of(lines.begin(), lines.end(),
                        [](const std::string &line) { return line.find("about to be killed") != std::string::npos; }));
}

QTEST_GUILESS_MAIN(TestRecorder)
#include "tst_recorder.moc"
