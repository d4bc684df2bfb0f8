#include "app/cli/commands.h"
#include "core/torch/modelfile.h"
#include "core/util/version.h"

#include <CLI/CLI.hpp>

#include <string>

int main(int argc, char **argv)
{
    using namespace pyrometer;
    CLI::App app{"pyrometer-cli: profile deep-learning models and read torch.profiler traces, without the GUI.\n"
                 "Every subcommand takes --format table|csv|md|json. TRACE is a .json, .json.gz or a "
                 "TensorBoard log directory.\nExit status: 0 success, 1 a finding asked to fail on, 2 bad input.",
                 "pyrometer-cli"};
    app.set_version_flag("--version", std::string("pyrometer-cli ") + kVersion + " (libtorch " + torch::torchVersion() + ")");
    app.require_subcommand(1);

    int exitCode = cli::kSuccess;
    cli::addCommands(app, &exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        app.exit(e);
        return cli::kBadInput;
    }
    return exitCode;
}
