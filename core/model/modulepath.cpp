#include "core/model/modulepath.h"

#include <algorithm>

namespace pyrometer::model {
namespace {

// "encoder(TransformerEncoder)::forward" -> "encoder"
std::string instanceOf(const std::string &frame)
{
    return frame.substr(0, frame.find('('));
}

// "encoder(TransformerEncoder)::forward" -> "TransformerEncoder"; a mangled or qualified class
// name -> its last part, as ModelInfo names types.
std::string typeOf(const std::string &frame)
{
    const auto open = frame.find('(');
    const auto close = frame.find(')', open);
    if (open == std::string::npos || close == std::string::npos)
        return {};
    const auto type = frame.substr(open + 1, close - open - 1);
    const auto dot = type.rfind('.');
    return dot == std::string::npos ? type : type.substr(dot + 1);
}

std::string lastName(const std::string &name)
{
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::size_t depthOf(const std::string &name)
{
    return name.empty() ? 0 : std::size_t(std::count(name.begin(), name.end(), '.')) + 1;
}

std::string join(const std::string &parent, const std::string &child)
{
    return parent.empty() ? child : parent + "." + child;
}

} // namespace

ModulePaths::ModulePaths(const std::vector<Module> &modules)
{
    for (const auto &module : modules)
        m_types[module.name] = module.type;
    for (const auto &module : modules) {
        if (module.name.empty())
            continue;
        const auto last = lastName(module.name);
        // Every ancestor but the parent: the model, then each name prefix.
        auto ancestor = parentOf(parentOf(module.name));
        const bool deepEnough = depthOf(module.name) >= 2;
        while (deepEnough) {
            m_deeper[ancestor + '\n' + last].push_back(module.name);
            if (ancestor.empty())
                break;
            ancestor = parentOf(ancestor);
        }
    }
    for (auto &[key, names] : m_deeper)
        std::stable_sort(names.begin(), names.end(),
                         [](const std::string &a, const std::string &b) { return depthOf(a) < depthOf(b); });
}

std::vector<ModulePaths::Level> ModulePaths::levels(const std::vector<std::string> &frames) const
{
    std::vector<Level> result;
    std::string current;
    for (std::size_t i = 1; i < frames.size(); ++i) {
        const auto instance = instanceOf(frames[i]);
        // A module calling its own methods, a free function ("::softmax") or a graph executor's
        // fallback ("CALL_FUNCTION::fallback_function()::fallback_function") names no new level.
        if (instance.empty() || instance == "SELF" || instance == "TOP" || instance.find(':') != std::string::npos)
            continue;
        auto name = join(current, instance);
        if (!m_types.empty() && !m_types.contains(name)) {
            if (const auto it = m_deeper.find(current + '\n' + instance); it != m_deeper.end()) {
                const auto type = typeOf(frames[i]);
                std::vector<const std::string *> matches;
                for (const auto &candidate : it->second)
                    if (m_types.at(candidate) == type &&
                        (matches.empty() || depthOf(candidate) == depthOf(*matches.front())))
                        matches.push_back(&candidate);
                if (matches.size() == 1)
                    name = *matches.front();
            }
        }
        current = name;
        result.push_back({std::move(name), frames[i]});
    }
    return result;
}

std::string ModulePaths::name(const std::vector<std::string> &frames) const
{
    const auto all = levels(frames);
    return all.empty() ? std::string() : all.back().name;
}

} // namespace pyrometer::model
