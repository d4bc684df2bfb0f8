#pragma once

#include "core/trace/stringpool.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pyrometer::snapshot {

// A value of the pickle machine in 8 bytes: a tag in the top four bits, its payload below.
// Containers are slots of the machine (with a generation, so that a slot reused after its dict
// was turned into a row is never mistaken for the dict); rows are what a Hooks turned a dict into.
class Value {
public:
    enum class Tag : std::uint8_t { None, Bool, Int, BigInt, Float, Str, Bytes, Container, Row };

    constexpr Value() = default;
    static constexpr Value make(Tag tag, std::uint64_t payload)
    {
        return Value((std::uint64_t(tag) << 60) | (payload & kPayload));
    }
    static constexpr Value none() { return make(Tag::None, 0); }
    static constexpr Value boolean(bool b) { return make(Tag::Bool, b ? 1 : 0); }
    static constexpr bool fitsInline(std::int64_t v)
    {
        return v >= -(std::int64_t(1) << 59) && v < (std::int64_t(1) << 59);
    }
    // A small int inline (see fitsInline); larger ones are BigInt, an index into the machine's table.
    static constexpr Value smallInt(std::int64_t v) { return make(Tag::Int, std::uint64_t(v)); }
    static constexpr Value str(trace::StringId id) { return make(Tag::Str, id.value); }
    // A row: kind (0..15) and index, as a Hooks chose them.
    static constexpr Value row(unsigned kind, std::uint64_t index)
    {
        return make(Tag::Row, (std::uint64_t(kind) << 52) | index);
    }

    constexpr Tag tag() const { return Tag(m_bits >> 60); }
    constexpr std::uint64_t payload() const { return m_bits & kPayload; }
    constexpr std::int64_t inlineInt() const { return std::int64_t(m_bits << 4) >> 4; }
    constexpr trace::StringId strId() const { return trace::StringId(std::uint32_t(payload())); }
    constexpr unsigned rowKind() const { return unsigned(payload() >> 52); }
    constexpr std::uint64_t rowIndex() const { return payload() & ((std::uint64_t(1) << 52) - 1); }
    constexpr bool is(Tag t) const { return tag() == t; }
    constexpr bool operator==(const Value &) const = default;

private:
    static constexpr std::uint64_t kPayload = (std::uint64_t(1) << 60) - 1;
    constexpr explicit Value(std::uint64_t bits) : m_bits(bits) {}
    std::uint64_t m_bits = 0;
};

// Bytes of a pickle, read in pieces: a mapped file hands them over at once, a gzip stream a
// buffer at a time.
class PickleSource {
public:
    virtual ~PickleSource() = default;
    // Appends up to `size` more bytes at dst; returns how many (0 at the end or on error).
    virtual std::size_t read(char *dst, std::size_t size) = 0;
    // The bytes the file still holds at most (for a length check), or UINT64_MAX if unknown.
    virtual std::uint64_t remainingAtMost() const = 0;
    // Set when reading failed rather than ended (I/O, damaged gzip).
    virtual std::string error() const { return {}; }
    // The whole pickle at once where the file can be mapped (then read() is never called), or
    // empty; release(upTo) gives back the mapping's pages before upTo, read already.
    virtual std::string_view mapped() { return {}; }
    virtual void release(std::uint64_t upTo) { (void)upTo; }
};

// The machine's refusal: what is wrong and at which byte of the pickle.
struct PickleError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class PickleMachine;

// What a reader does with dicts as they are completed: it may turn one into a row of its own,
// and the machine forgets the dict. Called after every SETITEM(S) on a dict.
class PickleHooks {
public:
    virtual ~PickleHooks() = default;
    virtual std::optional<Value> dictFilled(PickleMachine &machine, Value dict) = 0;
    // Called every few hundred thousand opcodes with the bytes read so far; throw to stop.
    virtual void progress(std::uint64_t bytesRead) { (void)bytesRead; }
};

// Runs the subset of the pickle machine (protocols 2 to 5) that plain data needs: dicts,
// lists, tuples, sets, strings, bytes, ints, floats, bools, None and the memo. Every opcode
// that would name a class, call a function or build an object is refused: nothing is ever
// imported or run. Memory grows with the data kept, never with a length field's claim.
class PickleMachine {
public:
    enum class ContainerKind : std::uint8_t { Dict, List, Tuple, Set };

    explicit PickleMachine(trace::StringPool &strings) : m_strings(strings) {}

    // Runs the pickle to STOP and returns its top value. Throws PickleError.
    Value run(PickleSource &source, PickleHooks &hooks);

    // Room for the memo a pickle of this many entries needs, reserved up front: address space
    // only until the entries are written, and no copy as it grows.
    void reserve(std::size_t memoEntries);

    int protocol() const { return m_protocol; }
    std::uint64_t opcodes() const { return m_opcodes; }

    // Reading values. A container's items: a dict's are key, value, key, value...
    bool isContainer(Value v, ContainerKind kind) const;
    const std::vector<Value> &items(Value container) const;
    std::int64_t intValue(Value v) const; // Int, BigInt or Bool; 0 otherwise
    double floatValue(Value v) const;     // Float or any int
    bool isNumber(Value v) const
    {
        return v.is(Value::Tag::Int) || v.is(Value::Tag::BigInt) || v.is(Value::Tag::Float) || v.is(Value::Tag::Bool);
    }
    // The value of key in a dict, or nullopt.
    std::optional<Value> get(Value dict, trace::StringId key) const;
    // Forgets a container no longer needed (its slot is reused); its memo entry, if any,
    // becomes `replacement`.
    void release(Value container, Value replacement);

private:
    struct Slot {
        std::vector<Value> items;
        std::uint32_t generation = 0;
        std::uint32_t memo = UINT32_MAX; // the memo entry that holds it, for release()
        ContainerKind kind = ContainerKind::List;
        bool live = false;
    };

    Value newContainer(ContainerKind kind);
    Slot &slot(Value v);
    const Slot &slot(Value v) const;
    Value intOf(std::int64_t v);
    [[noreturn, gnu::cold, gnu::noinline]] void fail(const std::string &what) const;
    [[noreturn, gnu::cold, gnu::noinline]] void memoMissing(std::uint64_t index) const;

    trace::StringPool &m_strings;
    std::vector<Slot> m_slots;
    std::vector<std::uint32_t> m_freeSlots;
    std::vector<std::int64_t> m_bigInts;
    std::vector<double> m_floats;
    std::vector<Value> m_memo;
    int m_protocol = 0;
    std::uint64_t m_opcodes = 0;
    std::uint64_t m_offset = 0; // of the opcode being run, for messages
};

} // namespace pyrometer::snapshot
