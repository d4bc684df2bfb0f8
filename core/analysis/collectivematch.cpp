#include "core/analysis/collectivematch.h"

#include "core/analysis/job.h"
#include "core/util/format.h"

#include <algorithm>
#include <cctype>
#include <compare>
#include <limits>
#include <map>
#include <optional>

namespace pyrometer::analysis {

namespace {

// The group a call is matched and tabled in: its name and members, "" without either.
std::string groupKey(const CollectiveCall &call)
{
    if (!call.hasGroup())
        return {};
    return call.group + '\x1f' + membersText(call.groupRanks);
}

struct CallKey {
    std::string group;
    std::string name;
    std::int64_t bytes = -1;
    std::int64_t sequence = -1;
    auto operator<=>(const CallKey &) const = default;
};

CallKey keyOf(const CollectiveCall &call)
{
    return {groupKey(call), call.name, call.bytes, call.sequence};
}

using CallList = std::vector<const CollectiveCall *>;
using CallsByKey = std::map<CallKey, CallList>;

// A call that two ranks or more ran: (rank index, its call) per member that ran it, by index.
struct MatchedCall {
    std::vector<std::pair<std::size_t, const CollectiveCall *>> members;
};

struct Matching {
    std::vector<CallsByKey> byKey; // per rank index
    std::vector<MatchedCall> matched;
    std::map<std::string, std::vector<std::size_t>> groupCalls;   // group -> indices into matched
    std::map<std::string, std::vector<std::size_t>> groupMembers; // group -> rank indices, ascending
};

// Calls are gathered by key once, so a job of many ranks and groups costs its number of calls,
// not calls x ranks; a matched call lists only the members that ran it.
Matching matchCalls(const std::vector<RankFigures> &ranks)
{
    Matching m;
    for (const auto &rank : ranks) {
        auto &byKey = m.byKey.emplace_back();
        for (const auto &call : rank.collectives)
            byKey[keyOf(call)].push_back(&call);
    }
    std::map<CallKey, std::vector<std::pair<std::size_t, const CallList *>>> keyed;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        for (const auto &[key, list] : m.byKey[r]) {
            keyed[key].emplace_back(r, &list);
            auto &members = m.groupMembers[key.group];
            if (members.empty() || members.back() != r)
                members.push_back(r);
        }
    }
    for (const auto &[key, lists] : keyed) {
        std::size_t longest = 0;
        for (const auto &entry : lists)
            longest = std::max(longest, entry.second->size());
        for (std::size_t k = 0; k < longest; ++k) {
            MatchedCall call;
            for (const auto &[r, list] : lists) {
                if (list->size() > k)
                    call.members.emplace_back(r, (*list)[k]);
            }
            if (call.members.size() < 2)
                continue;
            m.groupCalls[key.group].push_back(m.matched.size());
            m.matched.push_back(std::move(call));
        }
    }
    return m;
}

// Whether a matched call ends at one instant on every member once clocks are shifted by offsets
// (collectives finish together): within 1 ms plus 2% of its shortest duration.
bool endsTogether(const MatchedCall &call, const std::vector<std::int64_t> &offsets)
{
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    std::int64_t last = std::numeric_limits<std::int64_t>::min();
    std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
    for (const auto &[r, c] : call.members) {
        first = std::min(first, c->endNs + offsets[r]);
        last = std::max(last, c->endNs + offsets[r]);
        shortest = std::min(shortest, c->endNs - c->startNs);
    }
    return last - first <= 1'000'000 + shortest / 50;
}

std::string describeCall(const CollectiveCall &call, std::size_t k)
{
    auto text = call.name;
    if (call.bytes >= 0)
        text += " of " + formatBytes(static_cast<std::uint64_t>(call.bytes));
    text += call.sequence >= 0 ? " seq " + std::to_string(call.sequence) : " #" + std::to_string(k + 1);
    const auto label = processGroupLabel(call.group, call.groupDesc);
    if (!label.empty())
        text += " in group " + label;
    return text;
}

// One group's clocks: offsets that put its members on its first member's clock.
struct GroupAnchor {
    std::vector<std::size_t> members;
    std::vector<std::int64_t> relative; // per rank index; meaningful for members
    std::size_t score = 0;
    std::string call;
};

// Candidate anchors: calls of the group's first member that every member ran; collectives end
// together, so such a call's end is one instant on every member's clock. Of the first few, the
// one under which most of the group's calls end together wins (a trace that starts later in the
// schedule would otherwise pair different calls); the earliest on a tie.
std::optional<GroupAnchor> groupAnchor(const std::vector<RankFigures> &ranks, const Matching &m,
                                       const std::string &group)
{
    const auto &members = m.groupMembers.at(group);
    const auto calls = m.groupCalls.find(group);
    if (members.size() < 2 || calls == m.groupCalls.end())
        return std::nullopt;
    constexpr int kCandidates = 32;
    std::map<CallKey, std::size_t> seen;
    std::vector<std::int64_t> offsets(ranks.size(), 0);
    GroupAnchor best;
    int candidates = 0;
    for (const auto &call : ranks[members.front()].collectives) {
        auto key = keyOf(call);
        if (key.group != group)
            continue;
        const auto k = seen[key]++;
        const bool everywhere = std::all_of(members.begin(), members.end(), [&](std::size_t r) {
            const auto it = m.byKey[r].find(key);
            return it != m.byKey[r].end() && it->second.size() > k;
        });
        if (!everywhere)
            continue;
        for (const auto r : members)
            offsets[r] = call.endNs - m.byKey[r].at(key)[k]->endNs;
        const auto score = static_cast<std::size_t>(std::count_if(
            calls->second.begin(), calls->second.end(), [&](std::size_t i) { return endsTogether(m.matched[i], offsets); }));
        if (score > best.score) {
            best.score = score;
            best.relative = offsets;
            best.call = describeCall(call, k);
        }
        if (++candidates == kCandidates)
            break;
    }
    if (best.score == 0)
        return std::nullopt;
    best.members = members;
    return best;
}

std::string joinedCalls(const std::vector<const GroupAnchor *> &used)
{
    constexpr std::size_t kShown = 4;
    std::string text;
    for (std::size_t i = 0; i < used.size() && i < kShown; ++i)
        text += (i ? ", " : "") + used[i]->call;
    if (used.size() > kShown)
        text += ", and " + std::to_string(used.size() - kShown) + " more";
    return text;
}

} // namespace

std::string rangesText(const std::vector<int> &numbers, std::size_t limit)
{
    std::string text;
    std::size_t shown = 0;
    for (std::size_t i = 0; i < numbers.size();) {
        auto j = i;
        while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1)
            ++j;
        if (shown == limit) {
            text += ", ...";
            break;
        }
        if (!text.empty())
            text += ", ";
        text += std::to_string(numbers[i]);
        if (j > i)
            text += "-" + std::to_string(numbers[j]);
        ++shown;
        i = j + 1;
    }
    return text;
}

GroupMembers groupMembers(std::string_view text)
{
    GroupMembers members;
    members.complete = text.find("...") == std::string_view::npos;
    for (std::size_t i = 0; i < text.size();) {
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
            ++i;
            continue;
        }
        int value = 0;
        std::size_t digits = 0;
        for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, ++digits)
            value = digits < 9 ? value * 10 + (text[i] - '0') : value;
        members.ranks.push_back(value);
    }
    if (members.ranks.empty())
        members.complete = false;
    return members;
}

std::string processGroupLabel(std::string_view name, std::string_view description)
{
    if (description.empty() || description == "undefined")
        return std::string(name);
    if (name.empty())
        return std::string(description);
    return std::string(description) + " (" + std::string(name) + ")";
}

std::string membersText(std::string_view ranksText)
{
    const auto members = groupMembers(ranksText);
    if (members.ranks.empty())
        return std::string(ranksText);
    auto text = rangesText(members.ranks, std::numeric_limits<std::size_t>::max());
    return members.complete ? text : text + ", ...";
}

int effectiveGroupSize(const CollectiveCall &call, int worldSize)
{
    if (call.groupSize > 0)
        return call.groupSize;
    if (const auto members = groupMembers(call.groupRanks); members.complete)
        return static_cast<int>(members.ranks.size());
    return worldSize;
}

void alignAndWait(JobFigures &job)
{
    const auto n = job.ranks.size();
    job.clockOffsetNs.assign(n, 0);
    job.waitNs.assign(n, 0);
    job.stepWaitNs.assign(n, {});
    for (std::size_t r = 0; r < n; ++r)
        job.stepWaitNs[r].assign(job.ranks[r].steps.size(), 0);
    if (n < 2) {
        job.anchor = "one rank: nothing to align";
        return;
    }
    const auto m = matchCalls(job.ranks);
    std::vector<GroupAnchor> anchors;
    for (const auto &entry : m.groupMembers) {
        if (auto anchor = groupAnchor(job.ranks, m, entry.first))
            anchors.push_back(std::move(*anchor));
    }
    if (anchors.empty()) {
        job.anchor = "none: no collective ran on every rank of its group, so clocks are not aligned and waits are "
                     "not measured";
        return;
    }
    // The largest groups first: a world group aligns every rank at once, and the fewer groups a
    // chain goes through, the fewer anchors' errors add up.
    std::stable_sort(anchors.begin(), anchors.end(), [](const GroupAnchor &a, const GroupAnchor &b) {
        return a.members.size() > b.members.size();
    });
    std::vector<bool> aligned(n, false);
    const bool firstInAGroup = std::any_of(anchors.begin(), anchors.end(), [](const GroupAnchor &a) {
        return a.members.front() == 0;
    });
    aligned[firstInAGroup ? 0 : anchors.front().members.front()] = true;
    std::vector<const GroupAnchor *> used;
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto &anchor : anchors) {
            const auto known =
                std::find_if(anchor.members.begin(), anchor.members.end(), [&](std::size_t r) { return aligned[r]; });
            if (known == anchor.members.end())
                continue;
            bool added = false;
            for (const auto r : anchor.members) {
                if (aligned[r])
                    continue;
                job.clockOffsetNs[r] = job.clockOffsetNs[*known] + anchor.relative[r] - anchor.relative[*known];
                aligned[r] = true;
                added = true;
            }
            if (added) {
                used.push_back(&anchor);
                grew = true;
            }
        }
    }

    // Waits: for every matched call whose members are aligned and that ends together, the time
    // from each member's arrival to the last member's. Calls that do not end together are not
    // the same call: left out.
    std::size_t together = 0;
    for (const auto &call : m.matched) {
        const bool onOneClock =
            std::all_of(call.members.begin(), call.members.end(), [&](const auto &member) { return aligned[member.first]; });
        if (!onOneClock || !endsTogether(call, job.clockOffsetNs))
            continue;
        ++together;
        std::int64_t latest = std::numeric_limits<std::int64_t>::min();
        for (const auto &[r, c] : call.members)
            latest = std::max(latest, c->startNs + job.clockOffsetNs[r]);
        for (const auto &[r, c] : call.members) {
            const auto wait = latest - (c->startNs + job.clockOffsetNs[r]);
            job.waitNs[r] += wait;
            if (const int step = job.ranks[r].stepOf(*c); step >= 0)
                job.stepWaitNs[r][std::size_t(step)] += wait;
        }
    }

    if (used.size() == 1 && used.front()->members.size() == n)
        job.anchor = "the end of a collective every rank ran: " + used.front()->call;
    else
        job.anchor = "the ends of collectives that link the ranks through their process groups: " + joinedCalls(used);
    job.anchor += "; " + std::to_string(together) + " of " + std::to_string(m.matched.size()) +
                  " calls that several ranks ran end together under " + (used.size() == 1 ? "it" : "them");
    std::vector<int> apart;
    for (std::size_t r = 0; r < n; ++r) {
        if (!aligned[r])
            apart.push_back(job.ranks[r].rank);
    }
    if (!apart.empty())
        job.anchor += "; not aligned, as no collective links them to the others: rank" +
                      std::string(apart.size() > 1 ? "s " : " ") + rangesText(apart);
}

std::vector<CollectiveRow> collectiveTable(const std::vector<CollectiveCall> &calls, int worldSize, int rank)
{
    std::map<std::tuple<std::string, std::string, std::int64_t>, CollectiveRow> rows;
    for (const auto &call : calls) {
        auto &row = rows[{groupKey(call), call.name, call.bytes}];
        if (row.calls == 0) {
            row.name = call.name;
            row.bytes = call.bytes;
            row.rank = rank;
            row.group = call.group;
            row.groupDesc = call.groupDesc;
            row.groupRanks = membersText(call.groupRanks);
        }
        if (row.groupSize <= 0)
            row.groupSize = effectiveGroupSize(call, -1);
        ++row.calls;
        row.timeNs += call.endNs - call.startNs;
    }
    std::vector<CollectiveRow> table;
    for (auto &[key, row] : rows) {
        if (row.groupSize <= 0)
            row.groupSize = worldSize;
        if (row.bytes > 0 && row.timeNs > 0) {
            // bytes per nanosecond is GB/s (1e9 bytes a second).
            row.algbwGBps =
                static_cast<double>(row.bytes) * static_cast<double>(row.calls) / static_cast<double>(row.timeNs);
            row.busbwGBps = row.algbwGBps * busBandwidthFactor(row.name, row.groupSize);
        }
        table.push_back(std::move(row));
    }
    std::stable_sort(table.begin(), table.end(),
                     [](const CollectiveRow &a, const CollectiveRow &b) { return a.timeNs > b.timeNs; });
    return table;
}

} // namespace pyrometer::analysis
