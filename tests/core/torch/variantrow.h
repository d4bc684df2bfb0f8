#pragma once
// What the variant tests share: a compare row by its variant's name.
#include "core/torch/variant.h"

namespace pyrometer::torch::testing {

// The row of the named variant; an empty, failed-looking row when there is none.
inline const VariantResult &row(const CompareReport &report, const std::string &name)
{
    for (const auto &r : report.rows)
        if (r.name == name)
            return r;
    static const VariantResult none = [] {
        VariantResult missing;
        missing.error = "no such row";
        return missing;
    }();
    return none;
}

} // namespace pyrometer::torch::testing
