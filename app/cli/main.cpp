#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/help.h"
#include "core/engine/engine.h"
#include "core/util/version.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

int main(int argc, char **argv)
{
    using namespace pyrometer;
    CLI::App app{"pyrometer-cli: profile deep-learning models and read torch.profiler traces, without the GUI.\n"
                 "Every subcommand takes --format table|csv|md|json. TRACE is a .json, .json.gz or a "
                 "TensorBoard log directory.\nExit status: 0 success, 1 a finding asked to fail on, 2 bad input.",
                 "pyrometer-cli"};
    app.set_version_flag("--version", std::string("pyrometer-cli ") + kVersion + " (libtorch " +
                                          engine::embeddedTorchVersion() + ")");
    app.require_subcommand(1);
    cli::installHelpFormatter(app); // before the subcommands, which take their parent's formatter

    int exitCode = cli::kSuccess;
    cli::addCommands(app, &exitCode);
    if (const auto unknown = cli::unknownCommandMessage(app, argc, argv); !unknown.empty()) {
        std::fprintf(stderr, "pyrometer-cli: %s\n", unknown.c_str());
        return cli::kBadInput;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        return cli::reportParseError(app, e);
    } catch (const std::exception &e) {
        // What a subcommand did not turn into an error of its own (a worker's malformed message):
        // said, and bad input, never an abort.
        std::fprintf(stderr, "pyrometer-cli: %s failed: %s\n", argc > 1 ? argv[1] : "", e.what());
        return cli::kBadInput;
    }
    return exitCode;
}
