#include "ui/tables/tabletreemodel.h"

#include "core/util/format.h"
#include "ui/shell/preferences.h"

#include <cstdlib>

namespace pyrometer::ui::tables {

int TableTree::columnIndex(const QString &title) const
{
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].title == title)
            return int(i);
    return -1;
}

bool TableTree::isTree() const
{
    for (const auto &n : nodes)
        if (!n.children.empty())
            return true;
    return false;
}

int TableTree::addNode(int parentId, std::vector<QVariant> values, QString eventName, QString path)
{
    const int id = int(nodes.size());
    TableNode n;
    n.values = std::move(values);
    n.values.resize(columns.size());
    n.eventName = std::move(eventName);
    n.path = std::move(path);
    n.parent = parentId;
    auto &siblings = parentId < 0 ? roots : nodes[std::size_t(parentId)].children;
    n.row = int(siblings.size());
    siblings.push_back(id);
    nodes.push_back(std::move(n));
    return id;
}

TableTreeModel::TableTreeModel(QObject *parent) : QAbstractItemModel(parent) {}

void TableTreeModel::setTree(TableTree tree)
{
    const bool sameColumns = [&] {
        if (tree.columns.size() != m_tree.columns.size())
            return false;
        for (std::size_t i = 0; i < tree.columns.size(); ++i)
            if (tree.columns[i].title != m_tree.columns[i].title)
                return false;
        return true;
    }();
    beginResetModel();
    m_tree = std::move(tree);
    endResetModel();
    if (!sameColumns && !m_tree.columns.empty())
        Q_EMIT headerDataChanged(Qt::Horizontal, 0, int(m_tree.columns.size()) - 1);
}

const TableNode *TableTreeModel::node(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    const auto id = std::size_t(index.internalId());
    return id < m_tree.nodes.size() ? &m_tree.nodes[id] : nullptr;
}

QModelIndex TableTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= columnCount(parent))
        return {};
    if (parent.isValid() && parent.column() != 0)
        return {};
    const auto &siblings = parent.isValid() ? node(parent)->children : m_tree.roots;
    if (std::size_t(row) >= siblings.size())
        return {};
    return createIndex(row, column, quintptr(siblings[std::size_t(row)]));
}

QModelIndex TableTreeModel::parent(const QModelIndex &child) const
{
    const auto *n = node(child);
    if (!n || n->parent < 0)
        return {};
    const auto &p = m_tree.nodes[std::size_t(n->parent)];
    return createIndex(p.row, 0, quintptr(n->parent));
}

int TableTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_tree.roots.size());
    if (parent.column() != 0)
        return 0;
    const auto *n = node(parent);
    return n ? int(n->children.size()) : 0;
}

int TableTreeModel::columnCount(const QModelIndex &) const
{
    return int(m_tree.columns.size());
}

QString TableTreeModel::displayText(ColumnKind kind, const QVariant &value)
{
    if (!value.isValid())
        return {};
    // A figure that cannot be known says so ("unknown") in a column of numbers.
    if (kind != ColumnKind::Text && value.typeId() == QMetaType::QString)
        return value.toString();
    switch (kind) {
    case ColumnKind::Text: return value.toString();
    case ColumnKind::Count: return QString::number(value.toULongLong());
    case ColumnKind::Number:
    case ColumnKind::Id:
        return value.typeId() == QMetaType::Double ? QString::number(value.toDouble()) : QString::number(value.toLongLong());
    case ColumnKind::Duration: return displayDuration(value.toLongLong());
    case ColumnKind::Percent: return QString::number(value.toDouble(), 'f', 2) + QStringLiteral(" %");
    case ColumnKind::Bytes: {
        const qint64 bytes = value.toLongLong();
        const QString text = QString::fromStdString(formatBytes(std::uint64_t(std::llabs(bytes))));
        return bytes < 0 ? QStringLiteral("-") + text : text;
    }
    }
    return {};
}

QVariant TableTreeModel::data(const QModelIndex &index, int role) const
{
    const auto *n = node(index);
    if (!n || index.column() >= columnCount())
        return {};
    const auto column = std::size_t(index.column());
    const auto kind = m_tree.columns[column].kind;
    const QVariant &value = n->values[column];
    switch (role) {
    case Qt::DisplayRole: return displayText(kind, value);
    case Qt::ToolTipRole:
        if (column == 0)
            return n->path.isEmpty() ? n->eventName : n->path;
        return {};
    case Qt::TextAlignmentRole:
        return kind == ColumnKind::Text ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                        : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case SortRole:
        // Blank cells (group rows' min/max) sort below every number.
        if (!value.isValid())
            return kind == ColumnKind::Text ? QVariant(QString()) : QVariant(qint64(-1));
        return value;
    case RawValueRole: return value;
    case ExportRole:
        if (!value.isValid())
            return QString();
        switch (kind) {
        case ColumnKind::Duration: return QString::number(double(value.toLongLong()) / 1000.0, 'f', 3);
        case ColumnKind::Percent: return QString::number(value.toDouble(), 'f', 2);
        case ColumnKind::Text:
            // A row shown by a short name (a kernel's) exports the full name it stands for.
            if (column == 0 && !n->path.isEmpty())
                return n->path;
            return column == 0 && !n->eventName.isEmpty() ? n->eventName : value.toString();
        default: return value.toString();
        }
    case FilterRole:
        return n->path.isEmpty() ? value.toString() + QLatin1Char(' ') + n->eventName
                                 : n->path + QLatin1Char(' ') + n->eventName;
    case EventNameRole: return n->eventName;
    default: return {};
    }
}

QVariant TableTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    const auto &column = m_tree.columns[std::size_t(section)];
    switch (role) {
    case Qt::DisplayRole: return column.title;
    case ExportRole: return column.exportTitle.isEmpty() ? column.title : column.exportTitle;
    case Qt::ToolTipRole: return column.tooltip.isEmpty() ? QVariant() : QVariant(column.tooltip);
    case ColumnKindRole: return int(column.kind);
    case Qt::InitialSortOrderRole:
        // Amounts sort largest first on the first click, as every profiler does; names and ids
        // sort ascending.
        return int(column.kind == ColumnKind::Text || column.kind == ColumnKind::Id ? Qt::AscendingOrder
                                                                                    : Qt::DescendingOrder);
    case Qt::TextAlignmentRole:
        return column.kind == ColumnKind::Text ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                               : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    default: return {};
    }
}

Qt::ItemFlags TableTreeModel::flags(const QModelIndex &index) const
{
    if (!node(index))
        return Qt::NoItemFlags;
    auto f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (rowCount(index) == 0)
        f |= Qt::ItemNeverHasChildren;
    return f;
}

} // namespace pyrometer::ui::tables
