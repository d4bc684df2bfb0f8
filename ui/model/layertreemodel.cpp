#include "ui/model/layertreemodel.h"

#include "core/model/layerroofline.h"
#include "core/util/format.h"
#include "ui/roofline/rooflinecells.h"

#include <QLocale>

namespace pyrometer::ui {
namespace {

QString fixed(double value, int decimals)
{
    return QLocale().toString(value, 'f', decimals);
}

// "1.23 G": MACs and FLOPs span nine orders of magnitude between layers.
QString scaled(double value)
{
    if (value <= 0)
        return QString();
    static constexpr const char *kUnits[] = {"", " k", " M", " G", " T"};
    int unit = 0;
    while (value >= 1000 && unit < 4) {
        value /= 1000;
        ++unit;
    }
    return QLocale().toString(value, 'f', value < 10 ? 2 : value < 100 ? 1 : 0) + QLatin1String(kUnits[unit]);
}

} // namespace

QString shapesText(const std::vector<std::vector<std::int64_t>> &shapes)
{
    QStringList parts;
    for (const auto &shape : shapes) {
        QStringList dims;
        for (const auto dim : shape)
            dims << QString::number(dim);
        parts << QLatin1Char('[') + dims.join(QLatin1Char('x')) + QLatin1Char(']');
    }
    return parts.join(QLatin1String(", "));
}

LayerTreeModel::LayerTreeModel(QObject *parent) : QAbstractItemModel(parent) {}

const analysis::RooflineRow *LayerTreeModel::roofline(const QModelIndex &index) const
{
    const auto *row = layer(index);
    if (!row || !row->leaf || row->module.empty())
        return nullptr;
    return &m_roofline[std::size_t(row - m_rows.data())];
}

void LayerTreeModel::setRows(std::vector<model::LayerRow> rows, const QString &rootName,
                             std::optional<analysis::DeviceRoof> roof, bool deviceTimes)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_rootName = rootName;
    m_roof = std::move(roof);
    m_deviceTimes = deviceTimes;
    m_roofline.clear();
    for (const auto &row : m_rows)
        m_roofline.push_back(model::layerRooflineRow(row, m_roof, m_deviceTimes));
    m_nodes.assign(m_rows.size(), Node{});
    m_topLevel.clear();
    // Rows come depth-first with their depth: keep the chain of open ancestors.
    std::vector<int> ancestors;
    for (int i = 0; i < int(m_rows.size()); ++i) {
        const int depth = std::max(0, m_rows[std::size_t(i)].depth);
        if (std::size_t(depth) < ancestors.size())
            ancestors.resize(std::size_t(depth));
        Node &node = m_nodes[std::size_t(i)];
        auto &siblings = ancestors.empty() ? m_topLevel : m_nodes[std::size_t(ancestors.back())].children;
        node.parent = ancestors.empty() ? kNoParent : ancestors.back();
        node.rowInParent = int(siblings.size());
        siblings.push_back(i);
        ancestors.push_back(i);
    }
    endResetModel();
}

void LayerTreeModel::clear()
{
    setRows({}, QString());
}

const model::LayerRow *LayerTreeModel::layer(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    return &m_rows.at(std::size_t(index.internalId()));
}

const std::vector<int> &LayerTreeModel::childrenOf(const QModelIndex &parent) const
{
    return parent.isValid() ? m_nodes.at(std::size_t(parent.internalId())).children : m_topLevel;
}

QModelIndex LayerTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    return createIndex(row, column, quintptr(childrenOf(parent).at(std::size_t(row))));
}

QModelIndex LayerTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const int parentNode = m_nodes.at(std::size_t(child.internalId())).parent;
    if (parentNode == kNoParent)
        return {};
    return createIndex(m_nodes[std::size_t(parentNode)].rowInParent, 0, quintptr(parentNode));
}

int LayerTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(childrenOf(parent).size());
}

int LayerTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant LayerTreeModel::data(const QModelIndex &index, int role) const
{
    const model::LayerRow *row = layer(index);
    if (!row)
        return {};
    const int column = index.column();
    switch (role) {
    case QualifiedNameRole:
        return QString::fromStdString(row->module);
    case DepthRole:
        return row->depth;
    case LeafRole:
        return row->leaf;
    case FilterRole:
        if (column != ModuleColumn)
            return {};
        return (row->module.empty() ? m_rootName : QString::fromStdString(row->module)) + QLatin1Char(' ') +
               QString::fromStdString(row->type);
    case Qt::TextAlignmentRole:
        if (column == ModuleColumn || column == TypeColumn || column == OutputShapesColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter));
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ToolTipRole:
        if (column == ModuleColumn)
            return row->module.empty() ? m_rootName : QString::fromStdString(row->module);
        if (column == MemoryColumn)
            return tr("%1 allocated in this module's own ops").arg(QString::fromStdString(formatBytes(std::uint64_t(std::max<std::int64_t>(0, row->selfAllocatedBytes)))));
        if (column == MacsColumn)
            return tr("%1 FLOPs").arg(scaled(row->flops));
        if (const auto *r = roofline(index); r && column >= BytesColumn && column <= BoundColumn) {
            if (!r->roof)
                return tr("The roof of the device that ran it is unknown");
            return tr("Under %1: %2 GFLOP/s peak, %3 GB/s; ridge at %4 FLOP/byte")
                .arg(QString::fromStdString(m_roof->name))
                .arg(r->roof->peakFlops / 1e9, 0, 'g', 4)
                .arg(r->roof->bandwidth / 1e9, 0, 'g', 4)
                .arg(r->roof->ridge(), 0, 'g', 3);
        }
        return {};
    case SortRole:
        switch (column) {
        case ModuleColumn: return row->module.empty() ? m_rootName : QString::fromStdString(row->module);
        case TypeColumn: return QString::fromStdString(row->type);
        case CallsColumn: return row->calls;
        case SelfMsColumn: return row->selfMs;
        case TotalMsColumn: return row->totalMs;
        case DeviceMsColumn: return m_deviceTimes ? QVariant(row->deviceMs) : QVariant(-1.0);
        case PercentColumn: return row->percent;
        case ParamsColumn: return qulonglong(row->params);
        case MacsColumn: return row->macs;
        case GflopsColumn: return row->gflopsPerSecond;
        case BytesColumn:
        case IntensityColumn:
        case RoofColumn:
        case BoundColumn: {
            // Unknown figures sort below every known one.
            const auto *r = roofline(index);
            if (!r)
                return column == BoundColumn ? QVariant(QString()) : QVariant(-2.0);
            switch (column) {
            case BytesColumn: return r->bytes;
            case IntensityColumn: return r->intensity;
            case RoofColumn: return r->roof ? r->percentOfRoof : -1.0;
            default: return roofline::boundLabel(r->bound);
            }
        }
        case MemoryColumn: return qlonglong(row->allocatedBytes);
        case OutputShapesColumn: return shapesText(row->outputShapes);
        default: return {};
        }
    case Qt::DisplayRole:
        switch (column) {
        case ModuleColumn: {
            if (row->module.empty())
                return m_rootName;
            // The tree shows the path; each row names only its last part.
            const auto dot = row->module.rfind('.');
            return QString::fromStdString(dot == std::string::npos ? row->module : row->module.substr(dot + 1));
        }
        case TypeColumn: return QString::fromStdString(row->type);
        case CallsColumn: return row->calls;
        case SelfMsColumn: return fixed(row->selfMs, 3);
        case TotalMsColumn: return fixed(row->totalMs, 3);
        case DeviceMsColumn: return m_deviceTimes ? fixed(row->deviceMs, 3) : QString();
        case PercentColumn: return fixed(row->percent, 1);
        case ParamsColumn: return row->params ? QLocale().toString(qulonglong(row->params)) : QString();
        case MacsColumn: return scaled(row->macs);
        case GflopsColumn: return row->gflopsPerSecond > 0 ? fixed(row->gflopsPerSecond, 2) : QString();
        case BytesColumn:
        case IntensityColumn:
        case RoofColumn:
        case BoundColumn: {
            const auto *r = roofline(index);
            if (!r)
                return QString();
            const auto cell = [](const QVariant &value) {
                return value.typeId() == QMetaType::QString ? value.toString() : QLocale().toString(value.toDouble(), 'g', 3);
            };
            switch (column) {
            case BytesColumn: return cell(roofline::figureCell(r->bytes, 1e6));
            case IntensityColumn: return cell(roofline::figureCell(r->intensity, 1));
            case RoofColumn: return r->roof ? cell(roofline::figureCell(r->percentOfRoof, 1)) : tr("unknown");
            default: return roofline::boundLabel(r->bound);
            }
        }
        case MemoryColumn:
            return row->allocatedBytes > 0 ? QString::fromStdString(formatBytes(std::uint64_t(row->allocatedBytes))) : QString();
        case OutputShapesColumn: return shapesText(row->outputShapes);
        default: return {};
        }
    default:
        return {};
    }
}

QVariant LayerTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const kTitles[ColumnCount] = {
            QT_TR_NOOP("Module"),    QT_TR_NOOP("Type"),      QT_TR_NOOP("Calls"),    QT_TR_NOOP("Self ms"),
            QT_TR_NOOP("Total ms"),  QT_TR_NOOP("Device ms"), QT_TR_NOOP("%"),        QT_TR_NOOP("Params"),
            QT_TR_NOOP("MACs"),      QT_TR_NOOP("GFLOP/s"),   QT_TR_NOOP("MB moved"), QT_TR_NOOP("FLOP/byte"),
            QT_TR_NOOP("% of roof"), QT_TR_NOOP("Bound"),     QT_TR_NOOP("Memory"),   QT_TR_NOOP("Output shapes")};
        return tr(kTitles[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case SelfMsColumn: return tr("Mean time per profiled run in the module's own ops, not in its submodules");
        case TotalMsColumn:
            return tr("Mean time per profiled run, submodules included (on CUDA: the CPU's time running its ops, "
                      "launches included)");
        case DeviceMsColumn:
            return tr("Mean device time per profiled run of the kernels, copies and sets the module's ops launched, "
                      "submodules included: what the GPU spent on it, and what the roofline places");
        case PercentColumn: return tr("Total time as a share of the forward pass");
        case MemoryColumn: return tr("CPU memory allocated during the module's ops, submodules included");
        case MacsColumn: return tr("Multiply-accumulates of one run, submodules included");
        case BytesColumn: return tr("Bytes a leaf layer's ops move at least: weights and activations in and out, each once");
        case IntensityColumn: return tr("Arithmetic intensity: FLOPs per byte moved");
        case RoofColumn:
            return tr("The FLOP/s reached as a share of what the roof allows at this intensity (this CPU's measured "
                      "GEMM rate and copy bandwidth, or the GPU's from the device table)");
        case BoundColumn: return tr("Below the ridge a layer is memory-bound, above it compute-bound");
        default: return {};
        }
    }
    return {};
}

} // namespace pyrometer::ui
