#include "core/util/factoryname.h"

namespace pyrometer {

std::optional<FactoryName> parseFactoryName(std::string_view text)
{
    const auto colon = text.rfind(".py:");
    if (colon == std::string_view::npos || colon + 4 >= text.size())
        return std::nullopt;
    return FactoryName{std::filesystem::path(text.substr(0, colon + 3)), std::string(text.substr(colon + 4))};
}

} // namespace pyrometer
