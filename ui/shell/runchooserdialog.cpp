#include "ui/shell/runchooserdialog.h"

#include "core/util/format.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace pyrometer::ui {

namespace {
constexpr int kPathRole = Qt::UserRole + 1;
}

RunChooserDialog::RunChooserDialog(const QString &logDir, const std::vector<trace::LogRun> &runs, QWidget *parent)
    : QDialog(parent), m_tree(new QTreeWidget(this))
{
    setWindowTitle(tr("Open from log directory"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Runs in <b>%1</b>: check the traces to open.").arg(logDir.toHtmlEscaped()), this));

    m_tree->setHeaderLabels({tr("Run / worker"), tr("Span"), tr("Size")});
    bool first = true;
    for (const auto &run : runs) {
        auto *runItem = new QTreeWidgetItem(m_tree, {QString::fromStdString(run.name)});
        for (const auto &file : run.files) {
            const QString path = QString::fromStdString(file.path.string());
            auto *item = new QTreeWidgetItem(runItem, {QString::fromStdString(file.worker), QString::fromStdString(file.span),
                                                       QString::fromStdString(formatBytes(QFileInfo(path).size()))});
            item->setData(0, kPathRole, path);
            item->setToolTip(0, path);
            item->setCheckState(0, first ? Qt::Checked : Qt::Unchecked);
            first = false;
        }
        runItem->setExpanded(true);
    }
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    layout->addWidget(m_tree);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(560, 360);
}

QStringList RunChooserDialog::checkedFiles() const
{
    QStringList files;
    for (int r = 0; r < m_tree->topLevelItemCount(); ++r) {
        const auto *run = m_tree->topLevelItem(r);
        for (int f = 0; f < run->childCount(); ++f) {
            if (run->child(f)->checkState(0) == Qt::Checked)
                files.append(run->child(f)->data(0, kPathRole).toString());
        }
    }
    return files;
}

} // namespace pyrometer::ui
