#pragma once
// A model named as a Python factory, "dir/model.py:build": the file, and the function in it that
// builds the model. Read here once for the loader's classifier, both engines and the pages.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pyrometer {

struct FactoryName {
    std::filesystem::path file; // dir/model.py
    std::string function;       // build
};

// What text names, or nothing when it names no factory (no ".py:" with a function after it).
std::optional<FactoryName> parseFactoryName(std::string_view text);

} // namespace pyrometer
