#include "ui/shell/helpmenu.h"

#include <QApplication>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace pyrometer::ui {

const std::vector<KeyHelp> &keyHelp()
{
    static const std::vector<KeyHelp> rows = {
        {"window", "Ctrl+O / Ctrl+M", "open a trace / a TorchScript model"},
        {"window", "Ctrl+R", "record a PyTorch program (File → Record program…)"},
        {"window", "Ctrl+S", "save the session (File → Open session reads one)"},
        {"window", "Ctrl+E", "export a report (HTML or Markdown)"},
        {"window", "Ctrl+B", "bookmark the timeline's range or position"},
        {"window", "Ctrl+W / Ctrl+Shift+W", "close the trace or model of the page shown / close everything"},
        {"window", "Ctrl+1 … Ctrl+9, Ctrl+0",
         "Overview, Timeline, Flame graph, Operators, Memory, Model, Compare, Distributed, GPU; Roofline"},
        {"window", "Ctrl+,", "preferences"},
        {"window", "Ctrl+Tab / Ctrl+Shift+Tab", "the page's next / previous tab"},
        {"window", "F1 / Ctrl+/", "what the page shown is for / these keys"},
        {"window", "Ctrl+Q", "quit"},
        {"timeline", "W / S", "zoom in / out around the cursor"},
        {"timeline", "A / D", "pan left / right"},
        {"timeline", "wheel (or Ctrl+wheel, see Preferences)", "zoom; drag pans"},
        {"timeline", "double-click an event", "zoom to it"},
        {"timeline", "F / 0", "fit the selection / show the whole trace"},
        {"timeline", "Shift+drag", "select a range: its operators and kernels"},
        {"timeline", "[ / ]",
         "set the range's start / end at the cursor (the view's centre when the mouse is elsewhere)"},
        {"timeline", "R", "set the range to the selected event"},
        {"timeline", "← / → / ↑ / ↓",
         "select the event before / after, the enclosing one, the first one inside (with none selected: the event "
         "under the view's centre)"},
        {"timeline", "Ctrl+F, Enter, Shift+Enter, Esc",
         "search names, next match, previous match, back to the timeline"},
        {"timeline", "Esc", "clear the range, then the selection"},
        {"flame graph", "click / click the full-width frame", "zoom into a frame / back out one level"},
        {"flame graph", "double-click", "the sandwich view of that function"},
        {"tables", "Ctrl+C", "copy the selected rows as TSV"},
    };
    return rows;
}

QString keyHelpHtml()
{
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"4\"><tr><th align=\"left\">%1</th>"
                                  "<th align=\"left\">%2</th><th align=\"left\">%3</th></tr>")
                       .arg(QCoreApplication::translate("Help", "where"), QCoreApplication::translate("Help", "key or gesture"),
                            QCoreApplication::translate("Help", "does"));
    for (const auto &row : keyHelp())
        html += QStringLiteral("<tr><td>%1</td><td><b>%2</b></td><td>%3</td></tr>")
                    .arg(QString::fromUtf8(row.where).toHtmlEscaped(), QString::fromUtf8(row.keys).toHtmlEscaped(),
                         QString::fromUtf8(row.does).toHtmlEscaped());
    return html + QStringLiteral("</table>");
}

QString pageHelp(Page page)
{
    switch (page) {
    case Page::Overview:
        return QCoreApplication::translate(
            "Help", "The headline figures of the trace: each step's time by category, GPU utilization, memory peaks, "
                    "the advice (click one for its evidence in the Timeline) and the top operators and kernels (click "
                    "one for its row in Operators). Start here: it says where the time went.");
    case Page::Timeline:
        return QCoreApplication::translate(
            "Help", "Every event, by process, thread and GPU stream, with memory curves and steps. W/S zoom, A/D pan, "
                    "the arrows walk the events; Shift+drag selects a range and lists its operators and kernels; "
                    "Ctrl+F searches names.");
    case Page::FlameGraph:
        return QCoreApplication::translate(
            "Help", "The call tree as an icicle or a flame chart, wider where more time went. Click to zoom, search "
                    "to see a name's share, double-click for the sandwich of one function, or colour by change "
                    "against another trace.");
    case Page::Operators:
        return QCoreApplication::translate(
            "Help", "Operators, kernels, modules and memory as sortable, filterable trees, grouped by name, shape, "
                    "module or stack, with a filter and CSV export; Ctrl+C copies the "
                    "selected rows.");
    case Page::Memory:
        return QCoreApplication::translate(
            "Help", "Allocated and reserved memory of each device over time, its peaks marked, and the operators "
                    "that allocated. A recorded program adds memory by category: parameters, gradients, optimizer "
                    "state, activations.");
    case Page::Model:
        return QCoreApplication::translate(
            "Help", "A model's layers with parameters, FLOPs and measured time, warm and cold latency, batch-size "
                    "sweeps and each layer's roofline. TorchScript runs in the embedded libtorch; torch.export "
                    "programs and model.py factories run in your own Python.");
    case Page::Compare:
        return QCoreApplication::translate(
            "Help", "Before and after: a model's optimized variants side by side (speedup, error, size, accuracy), or "
                    "two traces' operator and kernel deltas and their diff flame graph.");
    case Page::Distributed:
        return QCoreApplication::translate(
            "Help", "A training job's ranks side by side: the straggler and what it costs the others, each rank's "
                    "compute, hidden and exposed communication, and a ranks × steps heat map (click a cell for that "
                    "step in the Timeline).");
    case Page::Gpu:
        return QCoreApplication::translate(
            "Help", "Why the GPU waited and what to fuse: launch delay per kernel and stream, idle time per step by "
                    "cause, the critical path of a step with what-ifs, CUDA graph replays, and the kernel sequences "
                    "that repeat.");
    case Page::Roofline:
        return QCoreApplication::translate(
            "Help", "Each kernel placed by its arithmetic intensity under the device's roofs: left of the ridge it is "
                    "memory-bound (move fewer bytes), right of it compute-bound (use the faster units). The table "
                    "gives each one's share of its roof.");
    case Page::Snapshots:
        return QCoreApplication::translate(
            "Help", "Why memory ran out: a CUDA allocator snapshot's active memory over time by stack, what was live "
                    "at the peak or an OOM (and why the OOM could not be served), grouped by stack, compile context or "
                    "annotation and as a flame graph by bytes; compared with another snapshot, what grew. Joined "
                    "with a trace of the same run, the trace's timeline shows the snapshot's memory and a row names "
                    "the ops that made it.");
    }
    return {};
}

QString tourHtml()
{
    QString html;
    for (const auto page : kAllPages)
        html += QStringLiteral("<p><a href=\"page:%1\"><b>%2</b></a>: %3</p>")
                    .arg(pageName(page), pageTitle(page).toHtmlEscaped(), pageHelp(page).toHtmlEscaped());
    if (const auto readme = readmePath(); !readme.isEmpty())
        html += QStringLiteral("<p>%1 <a href=\"%2\">%3</a></p>")
                    .arg(QCoreApplication::translate("Help", "The whole tour, with screenshots, is in"),
                         QUrl::fromLocalFile(readme).toString(QUrl::FullyEncoded), readme.toHtmlEscaped());
    return html;
}

QString readmePath()
{
    const QString beside = QCoreApplication::applicationDirPath();
    for (const QString &candidate : {beside + QStringLiteral("/../share/doc/pyrometer/README.md"),
                                     QStringLiteral(PYROMETER_SOURCE_README)}) {
        if (QFileInfo(candidate).isFile())
            return QFileInfo(candidate).canonicalFilePath();
    }
    return {};
}

namespace {

// A non-modal box of rich text whose "page:" links show that page.
void showTextBox(QMainWindow *window, const QString &title, const QString &html, const std::function<void(Page)> &showPage,
                 const QString &objectName)
{
    auto *dialog = new QDialog(window);
    dialog->setObjectName(objectName);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(title);
    auto *layout = new QVBoxLayout(dialog);
    auto *text = new QTextBrowser(dialog);
    text->setOpenLinks(false);
    text->setHtml(html);
    QObject::connect(text, &QTextBrowser::anchorClicked, dialog, [showPage](const QUrl &url) {
        if (url.scheme() == QStringLiteral("page")) {
            if (const auto page = pageFromName(url.path()))
                showPage(*page);
        } else {
            QDesktopServices::openUrl(url);
        }
    });
    layout->addWidget(text);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(720, 520);
    dialog->open();
}

} // namespace

QMenu *addHelpMenu(QMainWindow *window, HelpMenuParts parts)
{
    auto *help = window->menuBar()->addMenu(QCoreApplication::translate("Help", "&Help"));
    auto *thisPage = help->addAction(QCoreApplication::translate("Help", "&What is this page?"), window, [window, parts] {
        const auto page = parts.currentPage();
        auto *box = new QMessageBox(QMessageBox::Information, pageTitle(page), pageHelp(page), QMessageBox::Close, window);
        box->setObjectName(QStringLiteral("pageHelp"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    thisPage->setShortcut(QKeySequence(Qt::Key_F1));
    auto *keys = help->addAction(QCoreApplication::translate("Help", "&Keyboard and mouse"), window, [window, parts] {
        showTextBox(window, QCoreApplication::translate("Help", "Keyboard and mouse"), keyHelpHtml(), parts.showPage,
                    QStringLiteral("keyHelp"));
    });
    keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    help->addAction(QCoreApplication::translate("Help", "A &tour of the pages"), window, [window, parts] {
        showTextBox(window, QCoreApplication::translate("Help", "A tour of the pages"), tourHtml(), parts.showPage,
                    QStringLiteral("tour"));
    });
    help->addSeparator();
    help->addAction(QCoreApplication::translate("Help", "&About Pyrometer"), window, [window, parts] {
        QMessageBox::about(window, QCoreApplication::translate("Help", "About Pyrometer"), parts.aboutText());
    });
    help->addAction(QCoreApplication::translate("Help", "About &Qt"), qApp, &QApplication::aboutQt);
    return help;
}

} // namespace pyrometer::ui
