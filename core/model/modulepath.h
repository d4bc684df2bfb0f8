#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace pyrometer::model {

// "layer1.0.conv1" -> "layer1.0"; a top-level name -> "" (the model itself).
inline std::string parentOf(const std::string &name)
{
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

// The row of a module by qualified name, or of its nearest ancestor that has one; rows.front()
// (the model) when none has. rowOfModule maps names to positions in rows.
template <typename Row>
Row &nearestModuleRow(std::vector<Row> &rows, const std::unordered_map<std::string, std::size_t> &rowOfModule,
                      std::string name)
{
    while (true) {
        if (const auto it = rowOfModule.find(name); it != rowOfModule.end())
            return rows[it->second];
        if (name.empty())
            return rows.front();
        name = parentOf(name);
    }
}

// Qualified module names of the module hierarchies TorchScript records with each op
// ({"TOP(Net)::forward", "encoder(TransformerEncoder)::forward", "0(TransformerEncoderLayer)::forward"}),
// resolved against the model's modules. A frame names a module as its caller reached it: the
// elements of a ModuleList or Sequential that a forward iterates are called as "0", "1", ... of
// the list's owner, and the list has no frame of its own. Such a frame is the shallowest
// descendant of its caller's module with that last name and type ("encoder.layers.0").
class ModulePaths {
public:
    struct Module {
        std::string name; // qualified, "" for the model
        std::string type; // class name, "TransformerEncoderLayer"
    };
    ModulePaths() = default;
    explicit ModulePaths(const std::vector<Module> &modules);

    struct Level {
        std::string name;  // qualified
        std::string frame; // as recorded: "0(TransformerEncoderLayer)::forward"
    };
    // Each module frame below TOP, outermost first, with its module's qualified name. A frame no
    // module matches is named by joining the instance names, as without the model.
    std::vector<Level> levels(const std::vector<std::string> &frames) const;
    // The innermost of levels(frames), "" for the model itself.
    std::string name(const std::vector<std::string> &frames) const;

private:
    std::unordered_map<std::string, std::string> m_types; // name -> type
    // ancestor + '\n' + last name -> its descendants two or more levels below with that last
    // name, shallowest first
    std::unordered_map<std::string, std::vector<std::string>> m_deeper;
};

} // namespace pyrometer::model
