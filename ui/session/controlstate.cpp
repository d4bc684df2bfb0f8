#include "ui/session/controlstate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>

namespace pyrometer::ui {

nlohmann::json saveControls(const NamedControls &controls)
{
    nlohmann::json state = nlohmann::json::object();
    for (const auto &[name, widget] : controls) {
        if (const auto *combo = qobject_cast<const QComboBox *>(widget))
            state[name] = combo->currentText().toStdString();
        else if (const auto *check = qobject_cast<const QCheckBox *>(widget))
            state[name] = check->isChecked();
        else if (const auto *edit = qobject_cast<const QLineEdit *>(widget))
            state[name] = edit->text().toStdString();
        else if (const auto *spin = qobject_cast<const QSpinBox *>(widget))
            state[name] = spin->value();
    }
    return state;
}

void restoreControls(const NamedControls &controls, const nlohmann::json &state)
{
    if (!state.is_object())
        return;
    for (const auto &[name, widget] : controls) {
        const auto it = state.find(name);
        if (it == state.end())
            continue;
        if (auto *combo = qobject_cast<QComboBox *>(widget); combo && it->is_string()) {
            if (const int item = combo->findText(QString::fromStdString(it->get<std::string>())); item >= 0)
                combo->setCurrentIndex(item);
        } else if (auto *check = qobject_cast<QCheckBox *>(widget); check && it->is_boolean()) {
            check->setChecked(it->get<bool>());
        } else if (auto *edit = qobject_cast<QLineEdit *>(widget); edit && it->is_string()) {
            edit->setText(QString::fromStdString(it->get<std::string>()));
        } else if (auto *spin = qobject_cast<QSpinBox *>(widget); spin && it->is_number_integer()) {
            spin->setValue(it->get<int>());
        }
    }
}

} // namespace pyrometer::ui
