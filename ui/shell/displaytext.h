#pragma once

#include <QString>

#include <cstdint>
#include <string_view>

namespace pyrometer::ui {

// Core's text (UTF-8) as a QString.
QString qs(std::string_view text);

// A byte count as formatBytes writes it ("230 MiB"); a negative one as "0 B".
QString bytesText(std::int64_t bytes);

} // namespace pyrometer::ui
