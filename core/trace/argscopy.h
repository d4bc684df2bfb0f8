#pragma once

#include "core/trace/trace.h"

#include <algorithm>

namespace pyrometer::trace {

// Appends from's args, collective and extra args to to's, their strings re-interned by id (a map from
// from's string ids to to's), collective args re-indexed past to's args. Returns the index the
// first of from's args got: add it to from's tracks' args indices. Capacity grows
// geometrically, so that appending part after part stays linear.
template <typename RemapString>
std::uint32_t appendArgs(Trace &to, const Trace &from, RemapString id)
{
    const auto base = static_cast<std::uint32_t>(to.args.size());
    if (to.args.size() + from.args.size() > to.args.capacity())
        to.args.reserve(std::max(to.args.size() + from.args.size(), to.args.capacity() * 2));
    for (auto args : from.args) {
        args.inputDims = id(args.inputDims);
        args.inputTypes = id(args.inputTypes);
        args.concreteInputs = id(args.concreteInputs);
        to.args.push_back(args);
    }
    // Parts come one after another, so indices stay sorted.
    for (auto [index, collective] : from.collectiveArgs) {
        collective.name = id(collective.name);
        collective.dtype = id(collective.dtype);
        collective.groupName = id(collective.groupName);
        collective.groupDesc = id(collective.groupDesc);
        collective.groupRanks = id(collective.groupRanks);
        to.collectiveArgs.emplace_back(base + index, collective);
    }
    for (auto [index, extra] : from.extraArgs) {
        extra.kernelBackend = id(extra.kernelBackend);
        extra.kernelHash = id(extra.kernelHash);
        extra.kernelFile = id(extra.kernelFile);
        extra.kernelKwargs = id(extra.kernelKwargs);
        to.extraArgs.emplace_back(base + index, extra);
    }
    return base;
}

} // namespace pyrometer::trace
