#include "ui/tables/moduletree.h"

#include "ui/tables/tablebuild.h"

namespace pyrometer::ui::tables {

TableTree buildModuleTree(const analysis::ModuleTable &table, bool device)
{
    TableTree tree;
    tree.columns = {{column::kName, ColumnKind::Text, QStringLiteral("module")},
                    {column::kCalls, ColumnKind::Count, QStringLiteral("calls")},
                    {column::kTotal, ColumnKind::Duration, QStringLiteral("total_us")},
                    {column::kSelf, ColumnKind::Duration, QStringLiteral("self_us")},
                    {column::kModuleTotalPercent, ColumnKind::Percent, QStringLiteral("total_pct")}};
    if (device) {
        tree.columns.push_back({column::kDeviceTotal, ColumnKind::Duration, QStringLiteral("device_total_us")});
        tree.columns.push_back({column::kDeviceSelf, ColumnKind::Duration, QStringLiteral("device_self_us")});
    }
    tree.defaultSortColumn = 2;
    // The outermost modules' time is the whole model's.
    qint64 model = 0;
    for (const auto &row : table.rows)
        model += row.parent < 0 ? row.totalNs : 0;
    std::vector<int> nodeOfRow(table.rows.size(), -1);
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        const auto &row = table.rows[r];
        const QString name = QString::fromStdString(row.name);
        std::vector<QVariant> values{name, quint64(row.calls), qint64(row.totalNs), qint64(row.selfNs),
                                     model > 0 ? 100.0 * double(row.totalNs) / double(model) : 0.0};
        if (device) {
            values.emplace_back(qint64(row.deviceTotalNs));
            values.emplace_back(qint64(row.deviceSelfNs));
        }
        const int parent = row.parent >= 0 ? nodeOfRow[std::size_t(row.parent)] : -1;
        nodeOfRow[r] = tree.addNode(parent, std::move(values), QStringLiteral("nn.Module: ") + name,
                                    QString::fromStdString(row.path));
    }
    return tree;
}

TableTree buildOpMemoryTree(const analysis::OpMemoryTable &table)
{
    TableTree tree;
    tree.columns = {{column::kName, ColumnKind::Text, QStringLiteral("name")},
                    {column::kDevice, ColumnKind::Text, QStringLiteral("device")},
                    {column::kAllocations, ColumnKind::Count, QStringLiteral("allocations")},
                    {column::kFrees, ColumnKind::Count, QStringLiteral("frees")},
                    {column::kAllocated, ColumnKind::Bytes, QStringLiteral("allocated_bytes")},
                    {column::kFreed, ColumnKind::Bytes, QStringLiteral("freed_bytes")},
                    {column::kNet, ColumnKind::Bytes, QStringLiteral("net_bytes")}};
    if (table.hasAddresses)
        tree.columns.push_back({column::kHeldAtPeak, ColumnKind::Bytes, QStringLiteral("held_at_peak_bytes")});
    tree.defaultSortColumn = 4;
    for (const auto &row : table.rows) {
        const QString name = QString::fromStdString(row.name);
        std::vector<QVariant> values{name,
                                     QString::fromStdString(row.device),
                                     quint64(row.allocations),
                                     quint64(row.frees),
                                     qint64(row.allocatedBytes),
                                     qint64(row.freedBytes),
                                     qint64(row.allocatedBytes - row.freedBytes)};
        if (table.hasAddresses)
            values.emplace_back(qint64(row.peakBytes));
        tree.addNode(-1, std::move(values), row.name == analysis::kNoOp ? QString() : name);
    }
    return tree;
}

} // namespace pyrometer::ui::tables
