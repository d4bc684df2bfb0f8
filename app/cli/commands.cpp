#include "app/cli/commands.h"

#include "app/cli/arguments.h"
#include "app/cli/callcontext.h"

#include <algorithm>

namespace pyrometer::cli {

const std::vector<CommandSpec> &commandSpecs()
{
    static const std::vector<CommandSpec> specs{
        {"info", "TRACE", "counts, tracks, span, load speed", setupInfo},
        {"ops", "TRACE [--by name|shape|module|stack] [--sort self|total|calls] [--top N] [--range START_US:END_US]",
         "per-operator table, as torch's key_averages()", setupOps},
        {"kernels", "TRACE [--by name|type] [--by-stream] [--streams] [--top N] [--range START_US:END_US]",
         "GPU kernels, memcpy, memset; with --by type, time per kernel type", setupKernels},
        {"launches", "TRACE [--by launch|kernel|stream] [--top N] [--range START_US:END_US]",
         "each kernel's launch: call and kernel durations, launch delay, outliers, queue length per stream",
         setupLaunches},
        {"idle", "TRACE [--gaps] [--range START_US:END_US]",
         "why each GPU stream was idle in each step: host wait, kernel wait, other", setupIdle},
        {"critical-path", "TRACE [--step N] [--kind K,...] [--min-us US] [--sort S] [--top N]",
         "the chain of dependencies that makes a step's time, and what-ifs", setupCriticalPath},
        {"roofline",
         "TRACE [--device NAME | --peak TFLOPS --bandwidth GBS] [--by-shape] [--top N] [--range START_US:END_US] | "
         "--devices",
         "each op's FLOPs, bytes, intensity and achieved rate against its device's roof: compute- or memory-bound",
         setupRoofline},
        {"sequences", "TRACE [--top N] [--min-length N] [--max-length N] [--min-count N]",
         "kernel sequences that repeat on a stream: candidates for fusion or CUDA graphs", setupSequences},
        {"steps", "TRACE [--range START_US:END_US]", "per-step time breakdown", setupSteps},
        {"memory", "TRACE [--curve] [--range START_US:END_US]", "peak and curve of allocated memory", setupMemory},
        {"snapshot",
         "FILE [--at peak|oom|TIME] [--by stack|context|annotation] [--top N] [--diff OTHER] [--trace TRACE]",
         "a CUDA allocator snapshot: reserved, allocated and active bytes, the peak, each OOM and why, what was live "
         "(and, joined with a trace, the ops that made it)",
         setupSnapshot},
        {"flame", "TRACE --format collapsed [--events ops|python|all] [--no-threads]",
         "folded stacks (flamegraph.pl / speedscope input)", setupFlame},
        {"advise", "TRACE [--fail-on-finding]", "findings with evidence", setupAdvise},
        {"ranks", "PATH... [--fail-on-straggler] [--threads N]",
         "a distributed job's ranks (traces, rank summaries or merged jobs) side by side, the straggler, the "
         "collectives' bandwidth",
         setupRanks},
        {"summarize", "TRACE [-o RANK.summary.json] | PATH... --list",
         "what the job views need of one rank, in kilobytes (one task of a cluster's job array)", setupSummarize},
        {"merge", "SUMMARY... -o job.json", "rank summaries merged into one job that opens like its traces",
         setupMerge},
        {"diff", "BASE OTHER [--fail-if-slower PCT] [--top N]", "per-op and per-kernel deltas of two traces",
         setupDiff},
        {"profile", "MODEL --input 1x3x224x224 [--warmup N --iters N --threads N --mode infer|train --trace OUT]",
         "warm and cold latency and per-layer profile of a TorchScript model", setupProfile},
        {"flops", "MODEL --input ...", "parameters and FLOPs per layer", setupFlops},
        {"report",
         "INPUT... -o report.html|report.md [--job] [--input SHAPES --warmup N --iters N --top N --time-unit U]",
         "summary, step breakdown, top tables, advice and charts as one HTML or Markdown file; with --job, of a "
         "distributed job's ranks",
         setupReport},
        {"sweep",
         "MODEL --input Bx3x224x224 --batches 1,2,4,8 [--variants ...] [--memory-budget 4GiB] [--warmup N --iters N]",
         "batch-size sweep: latency, throughput, peak memory, knee", setupSweep},
        {"compare",
         "MODEL --input ... --variants baseline,frozen,channels_last,int8,int8_static,bf16 [--fail-if-slower PCT "
         "--gate VARIANT] | BASE.json OTHER.json",
         "optimized variants side by side, or per-layer deltas of two profiles", setupCompare},
        {"record",
         "[--python PATH] [--steps N] [--out DIR] [--mark auto|optimizer|forward|time] -- script.py ARGS | -- -m "
         "module ARGS",
         "runs a PyTorch program under the profiler, unchanged, and writes its trace (TensorBoard layout)",
         setupRecord},
        {"export", "MODEL --variant int8_static|int8|frozen|channels_last|bf16 [--input SHAPES] -o OUT.pt",
         "the optimized variant as a TorchScript file", setupExport},
        {"mcp", "[--write-dir DIR] [--memory-budget SIZE] [--max-result SIZE] [--threads N]",
         "a Model Context Protocol server on stdio for coding agents: the documents stay loaded between questions",
         setupMcp},
    };
    return specs;
}

void addCommands(CLI::App &app, int *exitCode)
{
    for (const auto &spec : commandSpecs()) {
        auto *command = app.add_subcommand(spec.name, spec.summary + "\n  usage: pyrometer-cli " + spec.name + " " + spec.usage);
        if (spec.setup) {
            spec.setup(*command, exitCode);
            continue;
        }
        command->allow_extras();
        command->callback([name = spec.name, exitCode] {
            cliErr() << "pyrometer-cli " << name << ": not implemented yet in this version\n";
            *exitCode = kBadInput;
        });
    }
}

int runCommand(std::vector<std::string> arguments)
{
    CLI::App app{"pyrometer-cli", "pyrometer-cli"};
    app.require_subcommand(1);
    int exitCode = kSuccess;
    addCommands(app, &exitCode);
    const std::string name = arguments.empty() ? std::string() : arguments.front();
    std::reverse(arguments.begin(), arguments.end()); // CLI11 takes a vector last argument first
    try {
        app.parse(arguments);
    } catch (const CLI::ParseError &e) {
        return reportParseError(app, e);
    } catch (const std::exception &e) {
        cliErr() << "pyrometer-cli: " << name << " failed: " << e.what() << '\n';
        return kBadInput;
    }
    return exitCode;
}

} // namespace pyrometer::cli
