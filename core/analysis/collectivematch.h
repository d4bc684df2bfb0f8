#pragma once

#include "core/analysis/distributed.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::analysis {

struct JobFigures;

// Collectives of a job's ranks matched across ranks, per process group: a call in group "1"
// of ranks 0-3 is matched with the calls of ranks 0-3 in the same group only. Calls are the same
// when group, collective, message size and sequence number ("Seq", where the trace has it)
// match, and, among those, by order: the k-th on one member is the k-th on every other. Traces
// without process groups put every call in one group of all ranks (matched by name and size).

// "0-3, 7, 9-127": numbers as ranges, at most `limit` of them then "...".
std::string rangesText(const std::vector<int> &numbers, std::size_t limit = 8);

// The ranks of a "Process Group Ranks" text ("[0, 1, 2, 3]", "[0,1]"), in the order written;
// complete is false when the list was cut short ("[0, 1, ..., ]", as torch writes long ones).
struct GroupMembers {
    std::vector<int> ranks;
    bool complete = false;
    bool operator==(const GroupMembers &) const = default;
};
GroupMembers groupMembers(std::string_view ranksText);

// A process group as people read it: its description and name ("mesh_tp (1)"), its name alone
// ("1"), or "" without either. torch's "undefined" description is left out.
std::string processGroupLabel(std::string_view name, std::string_view description);

// A group's members for tables: "0-3" (all of them as ranges) or the text as written when it
// holds no rank numbers; "" when unknown.
std::string membersText(std::string_view ranksText);

// The group size a call's bandwidth is worked out with: the args' "Group size", else the number
// of members listed, else the job's world size.
int effectiveGroupSize(const CollectiveCall &call, int worldSize);

// Clock offsets, anchor and waits of job.ranks (JobFigures' fields clockOffsetNs, anchor,
// waitNs): per group, of its first calls that all its members ran, the one under which most of
// its calls end together on every member; groups that share members chain their members' clocks
// (the largest groups first); ranks no group links to the first rank keep offset 0 and are
// named in the anchor. Waits add, per call that ends together on its aligned members, the time
// from each member's arrival to the last member's.
void alignAndWait(JobFigures &job);

} // namespace pyrometer::analysis
