#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace pyrometer::cli {

// Exit statuses shared by every subcommand.
enum ExitCode : int {
    kSuccess = 0,
    kFinding = 1,  // a finding the user asked to fail on (a regression gate)
    kBadInput = 2, // bad input: a one-line message on stderr names the file and the problem
};

// Adds a subcommand's options and its callback to `command`; the callback stores its exit
// status in *exitCode.
using CommandSetup = void (*)(CLI::App &command, int *exitCode);

// A subcommand of pyrometer-cli, as listed by --help.
struct CommandSpec {
    std::string name;
    std::string usage;   // its arguments, for --help
    std::string summary; // what it prints
    CommandSetup setup = nullptr; // null until the subcommand is implemented
};

// The implemented subcommands, one file each.
void setupInfo(CLI::App &command, int *exitCode);
void setupOps(CLI::App &command, int *exitCode);
void setupKernels(CLI::App &command, int *exitCode);
void setupRoofline(CLI::App &command, int *exitCode);
void setupLaunches(CLI::App &command, int *exitCode);
void setupIdle(CLI::App &command, int *exitCode);
void setupCriticalPath(CLI::App &command, int *exitCode);
void setupSequences(CLI::App &command, int *exitCode);
void setupSteps(CLI::App &command, int *exitCode);
void setupMemory(CLI::App &command, int *exitCode);
void setupSnapshot(CLI::App &command, int *exitCode);
void setupFlame(CLI::App &command, int *exitCode);
void setupAdvise(CLI::App &command, int *exitCode);
void setupRanks(CLI::App &command, int *exitCode);
void setupSummarize(CLI::App &command, int *exitCode);
void setupMerge(CLI::App &command, int *exitCode);
void setupDiff(CLI::App &command, int *exitCode);
void setupProfile(CLI::App &command, int *exitCode);
void setupFlops(CLI::App &command, int *exitCode);
void setupReport(CLI::App &command, int *exitCode);
void setupSweep(CLI::App &command, int *exitCode);
void setupCompare(CLI::App &command, int *exitCode);
void setupExport(CLI::App &command, int *exitCode);
void setupRecord(CLI::App &command, int *exitCode);
void setupMcp(CLI::App &command, int *exitCode);

// Every subcommand the CLI offers, in --help order.
const std::vector<CommandSpec> &commandSpecs();

// Adds every subcommand to app. A subcommand whose implementation does not exist yet
// accepts any arguments and, when called, says so on stderr and sets *exitCode to kBadInput.
void addCommands(CLI::App &app, int *exitCode);

// Runs one command line (without the program's name: {"ops", "trace.json", "--top=5"}) as the
// program would, writing to cliOut() and cliErr(); returns its exit status. A parse error or an
// exception is said on cliErr() and is kBadInput.
int runCommand(std::vector<std::string> arguments);

} // namespace pyrometer::cli
