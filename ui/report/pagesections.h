#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QAbstractItemModel>
#include <QString>

#include "core/report/report.h"

#include <vector>

namespace pyrometer::ui {

class ComparePage;
class SweepView;

// What the Model page's Sweep tab and the Compare page add to an exported report, taken from
// what they show (called on the GUI thread; see ReportExporter::addContributor).

// A table as shown: the model's header and display text, its first maxRows rows.
report::Table tableOfModel(const QAbstractItemModel &model, const std::string &caption, int maxRows = 1000);

// The sweep's three charts as one PNG, its summary and its points; for a sweep that did not
// finish (or is still running), its points and a note saying so. Nothing before a sweep.
std::vector<report::Section> sweepSections(const SweepView &sweep);
// The variants (latency of the timed runs), the chosen variant's per-layer deltas (profiled
// runs) and the diff flame graph of the baseline against a variant (the one the Diff flame
// graph tab shows, else the per-layer table's); two traces' op and kernel deltas (the 25
// largest of each) named base and other, with their own diff flame graph. Each flame graph is a
// PNG of its drawn rows; nothing not yet run.
std::vector<report::Section> compareSections(const ComparePage &page);

} // namespace pyrometer::ui
