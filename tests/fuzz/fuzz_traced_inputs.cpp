// libFuzzer target for the inputs torch.jit.trace keeps in a TorchScript archive
// (traced_inputs.pkl, read in core/torch/session.cpp): the smallest function of ours around it
// is givenOrRecordedInputs with no inputs given, which reads the archive's recorded inputs
// (recordedInputSpec: the pickle unpickled by libtorch, then our reading of what it holds) and
// parses them. The input is cut at each "\n@record\n" into the pickle and the records its
// tensors' storages name (traced_inputs/0, traced_inputs/1, ...); the archive around them is
// written by libtorch's own writer, so that the bytes fuzzed are the pickle's. Any bytes must
// give input specs or an Error with a message, never a crash, a hang or unbounded memory.
// libtorch is not instrumented: the fuzzer sees our code's branches only, and the sanitizers
// catch what libtorch does wrong only where it crashes or hands us something broken.
// The clang fuzz build has this target only where clang compiles libtorch's headers (not clang
// 14 with libtorch 1.13); its smoke test runs in every build.
//   seeds: tests/fixtures/fuzz/traced_inputs (torch.save's pickles of the inputs' dict, made by
//   tests/fuzz/make_fixture_seeds.sh)
#include "core/torch/session.h"
#include "tests/fuzz/fuzzfiles.h"

#include <caffe2/serialize/inline_container.h>

#include <cstdint>
#include <string>
#include <string_view>

using namespace pyrometer;

namespace {

constexpr std::string_view kRecordSeparator = "\n@record\n";
constexpr std::size_t kMaxRecords = 8;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    auto input = fuzz::asText(data, size);
    std::string archive;
    {
        caffe2::serialize::PyTorchStreamWriter writer([&](const void *bytes, std::size_t n) {
            archive.append(static_cast<const char *>(bytes), n);
            return n;
        });
        for (std::size_t record = 0;; ++record) {
            const auto cut = record < kMaxRecords ? input.find(kRecordSeparator) : std::string_view::npos;
            const auto part = input.substr(0, cut);
            const auto name =
                record == 0 ? std::string("traced_inputs.pkl") : "traced_inputs/" + std::to_string(record - 1);
            writer.writeRecord(name, part.data(), part.size());
            if (cut == std::string_view::npos)
                break;
            input.remove_prefix(cut + kRecordSeparator.size());
        }
        writer.writeEndOfFile();
    }
    static const auto file = fuzz::scratchDir() / "traced.pt";
    fuzz::writeFile(file, archive);

    const auto inputs = pyrometer::torch::givenOrRecordedInputs(file, {});
    (void)fuzz::checkResult(inputs);
    if (inputs.ok() && inputs.value().empty())
        fuzz::fail("recorded inputs read as none");
    return 0;
}
