#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace pyrometer::torch {

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

} // namespace pyrometer::torch
