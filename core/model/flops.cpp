#include "core/model/flops.h"

#include "core/model/modulepath.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace pyrometer::model {

std::string moduleName(const std::vector<std::string> &frames, int levels)
{
    const auto named = ModulePaths().levels(frames);
    if (named.empty() || levels == 0)
        return {};
    return named[levels < 0 ? named.size() - 1 : std::min(named.size(), std::size_t(levels)) - 1].name;
}

FlopsReport summarizeFlops(const ModelInfo &model, const std::vector<OpRecord> &ops)
{
    FlopsReport report;
    report.path = model.path;
    report.params = model.parameters;
    std::unordered_map<std::string, std::size_t> index;
    for (const auto &module : model.modules) {
        FlopsRow row;
        row.module = module.qualifiedName;
        row.type = module.typeName;
        row.depth = module.depth;
        row.params = module.totalParameters;
        index[row.module] = report.rows.size();
        report.rows.push_back(std::move(row));
    }
    for (const auto &row : report.rows)
        if (!row.module.empty())
            if (const auto parent = index.find(parentOf(row.module)); parent != index.end())
                report.rows[parent->second].leaf = false;
    if (report.rows.empty()) {
        report.rows.push_back(FlopsRow{});
        index[""] = 0;
    }
    const auto rowOf = [&](const std::string &name) -> FlopsRow & {
        return nearestModuleRow(report.rows, index, name);
    };
    std::vector<ModulePaths::Module> modules;
    for (const auto &module : model.modules)
        modules.push_back({module.qualifiedName, module.typeName});
    const ModulePaths paths(modules);
    std::map<std::string, std::set<std::string>> calls; // module -> distinct call paths
    std::map<std::string, std::string> firstCall;
    std::set<std::string> uncounted;
    for (const auto &op : ops) {
        const auto levels = paths.levels(op.moduleFrames);
        const auto cost = opCost(op);
        if (!cost.counted)
            uncounted.insert(op.name);
        auto &row = rowOf(levels.empty() ? std::string() : levels.back().name);
        row.selfMacs += cost.macs;
        row.selfFlops += cost.flops;
        const double bytes = analysis::opBytes(op);
        row.selfBytes = bytes < 0 || row.selfBytes < 0 ? -1 : row.selfBytes + bytes;
        for (const auto &arg : op.args)
            if (arg.kind == analysis::OpArg::Kind::Tensor && arg.elementBytes > 0 && row.elementBytes == 0) {
                row.elementBytes = arg.elementBytes;
                row.dtype = arg.dtype;
                break;
            }
        report.totalMacs += cost.macs;
        report.totalFlops += cost.flops;
        // Each prefix of the frames is one call of that module; the call path tells calls apart.
        std::string name;
        std::string path = op.moduleFrames.empty() ? std::string() : op.moduleFrames.front();
        for (std::size_t level = 0; level <= levels.size(); ++level) {
            if (level > 0) {
                name = levels[level - 1].name;
                path += "/" + levels[level - 1].frame;
            }
            calls[name].insert(path);
            const auto [first, inserted] = firstCall.emplace(name, path);
            if ((inserted || first->second == path) && !op.outputShapes.empty())
                rowOf(name).outputShapes = op.outputShapes;
        }
    }
    for (auto &row : report.rows) {
        row.calls = int(calls[row.module].size());
        row.macs = row.selfMacs;
        row.flops = row.selfFlops;
        row.bytes = row.selfBytes;
    }
    // Depth-first order: children follow their parent, so a reverse pass sums subtrees.
    for (auto i = report.rows.size(); i-- > 1;) {
        auto &parent = rowOf(parentOf(report.rows[i].module));
        parent.macs += report.rows[i].macs;
        parent.flops += report.rows[i].flops;
        parent.bytes = parent.bytes < 0 || report.rows[i].bytes < 0 ? -1 : parent.bytes + report.rows[i].bytes;
        if (parent.elementBytes == 0) {
            parent.elementBytes = report.rows[i].elementBytes;
            parent.dtype = report.rows[i].dtype;
        }
    }
    report.uncountedOps.assign(uncounted.begin(), uncounted.end());
    return report;
}

} // namespace pyrometer::model
