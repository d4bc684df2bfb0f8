#pragma once

#include <nlohmann/json.hpp>

#include <utility>
#include <vector>

class QWidget;

namespace pyrometer::ui {

// A page's settings as a session keeps them: named controls (QComboBox: its text,
// QCheckBox: checked, QLineEdit: text, QSpinBox: value). Restoring sets each control the
// state names and leaves the others as they are; a combo box whose saved text is not among
// its items keeps its choice.
using NamedControls = std::vector<std::pair<const char *, QWidget *>>;
nlohmann::json saveControls(const NamedControls &controls);
void restoreControls(const NamedControls &controls, const nlohmann::json &state);

} // namespace pyrometer::ui
