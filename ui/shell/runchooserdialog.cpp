#include "ui/shell/runchooserdialog.h"

#include "core/util/format.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>
#include <string>
#include <vector>

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

    m_tree->setHeaderLabels({tr("Run / worker"), tr("Recorded"), tr("Size")});
    m_tree->headerItem()->setToolTip(1, tr("When the span was recorded, from its name; the file's time where the name has none"));
    bool first = true; // every trace of the first run is checked
    for (const auto &run : runs) {
        auto *runItem = new QTreeWidgetItem(m_tree, {QString::fromStdString(run.name)});
        // A worker with several spans in a run is told apart by each span's name (the file
        // name's timestamp), and times that fall in one second by their milliseconds.
        std::map<std::string, int> spansOf;
        std::map<qint64, int> inSecond;
        std::vector<QDateTime> recorded;
        for (const auto &file : run.files) {
            ++spansOf[file.worker];
            const auto spanNs = trace::spanTimeNs(file.span);
            recorded.push_back(spanNs ? QDateTime::fromMSecsSinceEpoch(*spanNs / 1'000'000)
                                      : QFileInfo(QString::fromStdString(file.path.string())).lastModified());
            ++inSecond[recorded.back().toSecsSinceEpoch()];
        }
        for (std::size_t f = 0; f < run.files.size(); ++f) {
            const auto &file = run.files[f];
            const QString path = QString::fromStdString(file.path.string());
            const QFileInfo info(path);
            QString name = QString::fromStdString(file.worker);
            if (spansOf[file.worker] > 1)
                name += QStringLiteral(" \u00b7 ") + (file.span.empty() ? info.fileName() : QString::fromStdString(file.span));
            const bool sameSecond = inSecond[recorded[f].toSecsSinceEpoch()] > 1;
            const QString format = sameSecond ? QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz") : QStringLiteral("yyyy-MM-dd HH:mm:ss");
            auto *item = new QTreeWidgetItem(runItem, {name, QLocale().toString(recorded[f], format),
                                                       QString::fromStdString(formatBytes(info.size()))});
            item->setData(0, kPathRole, path);
            item->setToolTip(0, path);
            item->setToolTip(1, file.span.empty()
                                    ? tr("modified %1 (the name holds no span)").arg(recorded[f].toString(Qt::ISODateWithMs))
                                    : tr("span %1: %2").arg(QString::fromStdString(file.span), recorded[f].toString(Qt::ISODateWithMs)));
            item->setToolTip(2, tr("%1 bytes").arg(QLocale().toString(info.size())));
            item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
            item->setCheckState(0, first ? Qt::Checked : Qt::Unchecked);
        }
        first = false;
        runItem->setExpanded(true);
    }
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
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
