#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace pyrometer {

// A typed index: StringId, TrackId and EventIndex are distinct types, so one can never be
// passed where another is meant. Tag is an empty struct naming the kind.
template <typename Tag, typename Value = std::uint32_t>
struct StrongId {
    using ValueType = Value;
    static constexpr Value kInvalidValue = std::numeric_limits<Value>::max();

    Value value = kInvalidValue;

    constexpr StrongId() = default;
    constexpr explicit StrongId(Value v) : value(v) {}

    static constexpr StrongId invalid() { return StrongId(); }
    constexpr bool isValid() const { return value != kInvalidValue; }

    constexpr auto operator<=>(const StrongId &) const = default;
};

} // namespace pyrometer

template <typename Tag, typename Value>
struct std::hash<pyrometer::StrongId<Tag, Value>> {
    std::size_t operator()(const pyrometer::StrongId<Tag, Value> &id) const noexcept
    {
        return std::hash<Value>()(id.value);
    }
};
