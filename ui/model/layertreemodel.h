#pragma once

#include <QAbstractItemModel>

#include "core/analysis/roofline.h"
#include "core/model/layerprofile.h"

#include <vector>

namespace pyrometer::ui {

// The per-layer profile as a tree by module: each LayerRow (depth-first, with depth) is a
// node whose children are its submodules. Display text is formatted; SortRole holds the raw
// number so that the proxy sorts 9 ms before 10 ms.
class LayerTreeModel final : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        ModuleColumn,
        TypeColumn,
        CallsColumn,
        SelfMsColumn,
        TotalMsColumn,
        DeviceMsColumn, // the kernels its ops launched, submodules included (a profile with device times)
        PercentColumn,
        ParamsColumn,
        MacsColumn,
        GflopsColumn,
        BytesColumn,     // MB its ops move at least (weights and activations in and out)
        IntensityColumn, // FLOP/byte
        RoofColumn,      // % of the roof at its intensity
        BoundColumn,     // compute or memory
        MemoryColumn,
        OutputShapesColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // the raw value of the column (double, qulonglong or string)
        QualifiedNameRole,           // "layer1.0.conv1", "" for the model
        DepthRole,
        LeafRole,
        FilterRole, // on the module column: the qualified name and the type, what the filter matches
    };

    explicit LayerTreeModel(QObject *parent = nullptr);

    // rootName names the model's own row (its qualified name is "").
    // roof: what the leaf layers are placed under in the roofline columns (nothing: unknown).
    // deviceTimes: the rows' deviceMs were measured (CUDA); the roofline places them.
    void setRows(std::vector<model::LayerRow> rows, const QString &rootName,
                 std::optional<analysis::DeviceRoof> roof = std::nullopt, bool deviceTimes = false);
    bool deviceTimes() const { return m_deviceTimes; }
    const std::optional<analysis::DeviceRoof> &roof() const { return m_roof; }
    // A leaf layer's place under the roof; nullptr for a block (its time mixes ops of different
    // roofs) or an invalid index.
    const analysis::RooflineRow *roofline(const QModelIndex &index) const;
    void clear();
    const std::vector<model::LayerRow> &rows() const { return m_rows; }
    // The row behind an index of this model (not of a proxy); nullptr for an invalid one.
    const model::LayerRow *layer(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const final;
    QModelIndex parent(const QModelIndex &child) const final;
    int rowCount(const QModelIndex &parent = {}) const final;
    int columnCount(const QModelIndex &parent = {}) const final;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const final;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const final;

private:
    static constexpr int kNoParent = -1;
    struct Node {
        int parent = kNoParent;     // index into m_nodes / m_rows
        int rowInParent = 0;
        std::vector<int> children;  // indices into m_nodes
    };
    const std::vector<int> &childrenOf(const QModelIndex &parent) const;

    std::vector<model::LayerRow> m_rows;
    std::vector<Node> m_nodes; // parallel to m_rows
    std::optional<analysis::DeviceRoof> m_roof;
    std::vector<analysis::RooflineRow> m_roofline; // parallel to m_rows
    std::vector<int> m_topLevel;
    QString m_rootName;
    bool m_deviceTimes = false;
};

// "[8x16x64x64], [8x10]"
QString shapesText(const std::vector<std::vector<std::int64_t>> &shapes);

} // namespace pyrometer::ui
