#include "core/torch/flops.h"

#include "core/torch/modelfile.h"
#include "core/torch/session.h"

namespace pyrometer::torch {

Result<FlopsReport> countFlops(const std::filesystem::path &path, const std::vector<InputSpec> &inputs)
{
    auto session = ModelSession::open(path, inputs);
    if (!session.ok())
        return session.error();
    auto ops = session.value()->recordOps();
    if (!ops.ok())
        return ops.error();
    auto model = inspectModel(path);
    if (!model.ok())
        return model.error();
    auto report = summarizeFlops(model.value(), ops.value());
    report.inputs = session.value()->inputs();
    return report;
}

} // namespace pyrometer::torch
