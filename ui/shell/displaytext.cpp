#include "ui/shell/displaytext.h"

#include "core/util/format.h"

#include <algorithm>

namespace pyrometer::ui {

QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

QString bytesText(std::int64_t bytes)
{
    return QString::fromStdString(formatBytes(std::uint64_t(std::max<std::int64_t>(0, bytes))));
}

} // namespace pyrometer::ui
