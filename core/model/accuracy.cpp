// The plain parts of accuracy on the user's data: naming the files, and scoring predictions.
#include "core/model/accuracy.h"

#include "core/model/inputspec.h"

namespace pyrometer::model {

Result<std::optional<DataFiles>> dataFilesIn(std::string_view text, const std::filesystem::path &base)
{
    std::vector<std::string_view> items;
    bool files = false;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const auto item = trimBlanks(text.substr(0, comma));
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (item.empty())
            continue;
        // Shapes never hold a dot or a slash ("1x3x224x224:float32"); file names do.
        files = files || item.find_first_of("./") != std::string_view::npos;
        items.push_back(item);
    }
    if (!files)
        return std::optional<DataFiles>();
    if (items.size() > 2)
        return Error{"name the inputs file and, if you have one, the labels file (inputs.pt, labels.pt), not " +
                     std::to_string(items.size()) + " items"};
    const auto resolve = [&](std::string_view item) {
        const std::filesystem::path path(item);
        return path.is_absolute() || base.empty() ? path : base / path;
    };
    DataFiles data{resolve(items[0]), items.size() > 1 ? resolve(items[1]) : std::filesystem::path()};
    return std::optional<DataFiles>(std::move(data));
}

double top1Agreement(const std::vector<std::int64_t> &predictions, const std::vector<std::int64_t> &reference)
{
    const auto count = std::min(predictions.size(), reference.size());
    if (count == 0)
        return 0;
    std::size_t same = 0;
    for (std::size_t i = 0; i < count; ++i)
        same += predictions[i] == reference[i] ? 1 : 0;
    return double(same) / double(count);
}

} // namespace pyrometer::model
