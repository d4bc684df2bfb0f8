// pyrometer-cli export MODEL --variant int8_static -o OUT.pt: the optimized variant as a
// TorchScript file, to deploy or to open again.
#include "app/cli/callcontext.h"
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/variantoptions.h"
#include "core/model/variant.h"

#include <cstdio>
#include <filesystem>
#include <memory>

namespace pyrometer::cli {
namespace {

struct ExportOptions {
    std::string model;
    std::string variant;
    std::string input;
    std::string output;
};

int runExport(const ExportOptions &options)
{
    auto variants = model::parseVariants(options.variant);
    if (!variants.ok())
        return badInput(options.model + ": --variant: " + variants.error().message);
    if (variants->size() != 1)
        return badInput(options.model + ": --variant: name one variant, not " + std::to_string(variants->size()));
    const auto inputs = parseInputOption(options.model, options.input);
    if (!inputs)
        return kBadInput;
    const auto note = engine::exportVariant(options.model, variants->front(), *inputs, options.output);
    if (!note.ok())
        return badInput(note.error().message);
    std::error_code error;
    const auto bytes = std::filesystem::file_size(options.output, error);
    cliErr() << "pyrometer-cli: wrote " << options.output << " (" << note.value() << ", " << (error ? 0 : bytes)
             << " bytes)\n";
    return kSuccess;
}

} // namespace

void setupExport(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<ExportOptions>();
    command.add_option("MODEL", options->model, "A TorchScript model (torch.jit.save output)")->required();
    command.add_option("--variant", options->variant, "The variant to save: " + model::knownVariantNames())->required();
    command.add_option("--input", options->input,
                       "Input shapes to calibrate int8_static on and to record in the file (default: as the model records)");
    command.add_option("-o,--output", options->output, "The TorchScript file to write")->required();
    command.callback([options, exitCode] { *exitCode = runExport(*options); });
}

} // namespace pyrometer::cli
