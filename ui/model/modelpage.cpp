#include "ui/model/modelpage.h"

#include "core/util/format.h"
#include "ui/shell/emptystate.h"
#include "ui/workspace/workspace.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QStackedLayout>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace pyrometer::ui {

ModelPage::ModelPage(Workspace *workspace, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_stack(new QStackedLayout(this)),
      m_empty(new EmptyState(tr("Model"),
                             tr("Load a TorchScript model (what torch.jit.save writes) to time it warm and cold, "
                                "and to find its slowest layers, with parameters and FLOPs next to each layer's time."),
                             tr("Open a model: Ctrl+M"), this)),
      m_summary(new QLabel(this)), m_tree(new QTreeWidget(this))
{
    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_tree->setHeaderLabels({tr("Module"), tr("Type"), tr("Parameters")});
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(m_tree, 1);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);
    connect(workspace, &Workspace::modelOpened, this, &ModelPage::showModel);
}

bool ModelPage::hasContent() const
{
    return m_stack->currentIndex() == 1;
}

void ModelPage::showModel(int index)
{
    const auto &document = m_workspace->models().at(std::size_t(index));
    const auto &info = document.info;
    const QLocale locale;
    m_summary->setText(tr("<b>%1</b> &mdash; %2 parameters (%3), %4 modules, file %5<br><code>%6</code>")
                           .arg(QFileInfo(document.path).fileName().toHtmlEscaped(),
                                locale.toString(qulonglong(info.parameters)),
                                QString::fromStdString(formatBytes(info.parameterBytes)),
                                locale.toString(qulonglong(info.modules.size())),
                                QString::fromStdString(formatBytes(info.fileBytes)),
                                QString::fromStdString(info.forwardSchema).toHtmlEscaped()));

    m_tree->clear();
    // Modules come depth-first with their depth: keep a stack of the open ancestors.
    std::vector<QTreeWidgetItem *> ancestors;
    for (const auto &module : info.modules) {
        ancestors.resize(std::size_t(module.depth));
        const QString name = module.qualifiedName.empty() ? QFileInfo(document.path).fileName()
                                                          : QString::fromStdString(module.qualifiedName);
        const QStringList columns{name, QString::fromStdString(module.typeName),
                                  module.totalParameters ? locale.toString(qulonglong(module.totalParameters)) : QString()};
        auto *item = ancestors.empty() ? new QTreeWidgetItem(m_tree, columns) : new QTreeWidgetItem(ancestors.back(), columns);
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        ancestors.push_back(item);
    }
    m_tree->expandAll();
    m_tree->resizeColumnToContents(1);
    m_tree->resizeColumnToContents(2);
    m_stack->setCurrentIndex(1);
}

} // namespace pyrometer::ui
