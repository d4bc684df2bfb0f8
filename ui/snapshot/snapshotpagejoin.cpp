// The Snapshots page joined with a trace of the same run: the join as a job, the counter rows it
// gives the trace's timeline, and the ops that made the selected group's memory; and what it adds
// to a report.
#include "ui/snapshot/snapshotpage.h"

#include "core/report/snapshotreport.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/displaytext.h"
#include "ui/snapshot/tracejoinbar.h"
#include "ui/workspace/workspace.h"

#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>

namespace pyrometer::ui {

namespace {

struct JoinResult {
    snapshot::TraceJoin join;
    std::vector<trace::CounterSeries> counters;
};

constexpr std::size_t kOpsNamed = 3;

} // namespace

const snapshot::TraceJoin *SnapshotPage::currentJoin() const
{
    const auto *device = currentDevice();
    if (!device)
        return nullptr;
    const auto &join = m_open[std::size_t(m_current)].join;
    return join && join->join->device == device->device ? join->join.get() : nullptr;
}

void SnapshotPage::joinTrace(DocumentId traceId, std::optional<std::int64_t> offsetNs)
{
    const auto s = currentSnapshot();
    const auto *device = currentDevice();
    const auto document = m_workspace ? m_workspace->trace(traceId) : nullptr;
    if (!s || !device || !document)
        return;
    const auto devices = m_open[std::size_t(m_current)].devices;
    const std::size_t deviceIndex = std::size_t(m_device);
    const QString path = m_open[std::size_t(m_current)].path;
    auto trace = document->trace;
    m_joinBar->setStatus(tr("Joining with %1…").arg(document->fileName()), false);
    m_jobs->run<JoinResult>(
        tr("Joining %1 with a trace").arg(QFileInfo(path).fileName()), QStringLiteral("snapshot-join"),
        [s, devices, deviceIndex, trace, offsetNs](ProgressReporter &, const StopToken &) -> Result<JoinResult> {
            JoinResult r;
            const auto &d = (*devices)[deviceIndex];
            r.join = snapshot::joinTrace(*s, d, *trace, offsetNs);
            r.counters = snapshot::snapshotCounters(*s, d, *trace, r.join);
            return r;
        },
        this,
        [this, path, traceId, trace](JoinResult result) {
            // The snapshot may have been closed, or another shown, meanwhile.
            const auto it = std::find_if(m_open.begin(), m_open.end(), [&](const Open &o) { return o.path == path; });
            if (it == m_open.end())
                return;
            dropJoin(*it);
            if (result.join.joined) {
                it->join =
                    Open::Join{traceId, trace, std::make_shared<const snapshot::TraceJoin>(std::move(result.join))};
                Q_EMIT countersJoined(traceId, std::move(result.counters));
            } else {
                m_joinBar->setStatus(QString::fromStdString(result.join.message), false);
            }
            if (it->join)
                showJoinStatus();
            refreshLiveOps();
            updateMadeBy();
            Q_EMIT joined();
        });
}

void SnapshotPage::dropJoin(Open &open)
{
    if (!open.join)
        return;
    const auto traceId = open.join->traceId;
    open.join.reset();
    m_liveOps.clear();
    Q_EMIT countersJoined(traceId, {});
}

void SnapshotPage::showJoinStatus()
{
    const auto *join = currentJoin();
    if (join) {
        const auto &open = m_open[std::size_t(m_current)];
        m_joinBar->chooseTrace(open.join->traceId);
        m_joinBar->setStatus(QString::fromStdString(join->message) + tr(" Its memory is in the trace's timeline."),
                             true);
    } else {
        m_joinBar->setStatus(QString(), false);
    }
}

void SnapshotPage::refreshLiveOps()
{
    m_liveOps.clear();
    const auto *join = currentJoin();
    const auto s = currentSnapshot();
    const auto *device = currentDevice();
    if (join && s && device)
        m_liveOps = snapshot::opsByGroup(*s, *device, m_live, m_by, *m_open[std::size_t(m_current)].join->trace, *join);
}

void SnapshotPage::updateMadeBy()
{
    m_opTarget.reset();
    const auto *join = currentJoin();
    const auto s = currentSnapshot();
    const auto *device = currentDevice();
    if (!join || !s || !device || comparing()) {
        m_madeBy->hide();
        m_showOp->hide();
        return;
    }
    m_madeBy->show();
    m_showOp->show();
    m_showOp->setEnabled(false);
    const auto *item = m_table->currentItem();
    if (!item) {
        m_madeBy->setText(tr("Select a row to see the ops that made its memory, from the joined trace."));
        return;
    }
    const auto &open = m_open[std::size_t(m_current)];
    const auto key = item->data(0, kGroupKeyRole).toString().toStdString();
    const auto found = m_liveOps.find(key);
    if (found == m_liveOps.end() || found->second.empty()) {
        m_madeBy->setText(tr("None of this group's live blocks was allocated while the trace recorded."));
        return;
    }
    const auto &ops = found->second;
    QStringList named;
    for (std::size_t i = 0; i < std::min(ops.size(), kOpsNamed); ++i)
        named << tr("<b>%1</b> (%2 in %3 blocks)")
                     .arg(QString::fromStdString(ops[i].name).toHtmlEscaped(), bytesText(ops[i].bytes))
                     .arg(ops[i].blocks);
    QString text = tr("Made by %1").arg(named.join(QStringLiteral(", ")));
    if (ops.size() > kOpsNamed)
        text += tr(" and %1 more ops").arg(ops.size() - kOpsNamed);
    text += tr(", of the blocks the trace saw allocated.");
    m_madeBy->setText(text);
    m_madeBy->setToolTip(QString::fromStdString(ops.front().path).toHtmlEscaped());
    m_opTarget = OpTarget{open.join->traceId, ops.front().track, ops.front().event.value};
    m_showOp->setEnabled(true);
}

nlohmann::json SnapshotPage::saveState() const
{
    if (m_open.empty())
        return nullptr;
    nlohmann::json files = nlohmann::json::array();
    for (const auto &open : m_open)
        files.push_back(open.path.toStdString());
    return {{"files", files}, {"current", currentPath().toStdString()}, {"at", m_at.toStdString()}, {"by", int(m_by)}};
}

void SnapshotPage::restoreState(const nlohmann::json &state)
{
    if (!state.is_object() || !state.contains("files") || !state["files"].is_array())
        return;
    const auto text = [&](const char *key) {
        return state.contains(key) && state[key].is_string() ? QString::fromStdString(state[key].get<std::string>())
                                                             : QString();
    };
    if (state.contains("by") && state["by"].is_number_integer()) {
        const int by = state["by"].get<int>();
        if (by >= 0 && by <= int(snapshot::GroupBy::Annotation)) {
            m_by = snapshot::GroupBy(by);
            m_groupBy->setCurrentIndex(by);
        }
    }
    m_restoreCurrent = text("current");
    m_restoreAt = text("at");
    // The one shown last, so that it is the one shown when all are read.
    QStringList files;
    for (const auto &file : state["files"])
        if (file.is_string() && QString::fromStdString(file.get<std::string>()) != m_restoreCurrent)
            files << QString::fromStdString(file.get<std::string>());
    if (!m_restoreCurrent.isEmpty())
        files << m_restoreCurrent;
    m_restorePending = files;
    for (const auto &file : files)
        read(file);
}

std::vector<report::Section> SnapshotPage::reportSections() const
{
    std::vector<report::Section> sections;
    for (std::size_t i = 0; i < m_open.size(); ++i) {
        const auto &open = m_open[i];
        auto more = report::snapshotSections(*open.snapshot, *open.devices, open.ooms,
                                             QFileInfo(open.path).fileName().toStdString(),
                                             "snapshot" + std::to_string(i + 1) + "-");
        sections.insert(sections.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    return sections;
}

} // namespace pyrometer::ui
