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

// The sweep's three charts as one PNG, its summary and its points; nothing before a sweep.
std::vector<report::Section> sweepSections(const SweepView &sweep);
// The variants table and the chosen variant's per-layer deltas; two traces' op and kernel
// deltas (the 25 largest of each) with their diff flame graph as a PNG; nothing not yet run.
std::vector<report::Section> compareSections(const ComparePage &page);

} // namespace pyrometer::ui
