#include "core/snapshot/pickle.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

namespace pyrometer::snapshot {
namespace {

constexpr Value kUnset = Value::make(Value::Tag(15), 0);

// Bytes of the pickle with at least `n` of them ready at pos, refilled from the source.
class Window {
public:
    explicit Window(PickleSource &source) : m_source(source)
    {
        const std::string_view whole = source.mapped();
        if (!whole.empty()) {
            m_data = reinterpret_cast<const unsigned char *>(whole.data());
            m_end = whole.size();
            m_mapped = true;
        } else {
            m_buffer.resize(kChunk);
            m_data = reinterpret_cast<const unsigned char *>(m_buffer.data());
        }
    }
    // Pages of a mapped file before the current opcode are not read again.
    void releaseRead()
    {
        if (m_mapped)
            m_source.release(m_pos);
    }

    const unsigned char *pos() const { return m_data + m_pos; }
    std::size_t available() const { return m_end - m_pos; }
    std::uint64_t consumed() const { return m_base + m_pos; }
    void advance(std::size_t n) { m_pos += n; }
    void retreat() { --m_pos; }

    // Makes n bytes available; false when the pickle ends first. The buffer grows to at most
    // twice what was really read, so a length field's claim never allocates by itself.
    bool ensure(std::uint64_t n) { return available() >= n || refill(n); }

    [[gnu::noinline]] bool refill(std::uint64_t n)
    {
        if (m_mapped)
            return available() >= n;
        std::memmove(m_buffer.data(), m_buffer.data() + m_pos, available());
        m_base += m_pos;
        m_end -= m_pos;
        m_pos = 0;
        const bool believable = m_source.remainingAtMost() >= n - m_end;
        while (m_end < n) {
            if (m_end == m_buffer.size()) {
                if (!believable)
                    break;
                m_buffer.resize(std::max<std::size_t>(kChunk, std::min<std::uint64_t>(n, m_buffer.size() * 2)));
            }
            const std::size_t got = m_source.read(m_buffer.data() + m_end, m_buffer.size() - m_end);
            if (got == 0)
                break;
            m_end += got;
        }
        m_data = reinterpret_cast<const unsigned char *>(m_buffer.data());
        return m_end >= n;
    }

private:
    static constexpr std::size_t kChunk = std::size_t(4) << 20;
    PickleSource &m_source;
    std::vector<char> m_buffer;
    const unsigned char *m_data = nullptr;
    bool m_mapped = false;
    std::size_t m_pos = 0;
    std::size_t m_end = 0;
    std::uint64_t m_base = 0;
};

template <typename T> T littleEndian(const unsigned char *p)
{
    static_assert(std::endian::native == std::endian::little,
                  "pickles are little-endian, and so is every CPU we build for");
    T v;
    std::memcpy(&v, p, sizeof(T)); // one load
    return v;
}

bool validUtf8(const unsigned char *p, std::size_t n)
{
    std::size_t i = 0;
    while (i < n) {
        // Eight ASCII bytes at a time: names and paths are mostly ASCII.
        if (i + 8 <= n) {
            std::uint64_t w;
            std::memcpy(&w, p + i, 8);
            if ((w & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        const unsigned char c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + len > n)
            return false;
        for (std::size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        static constexpr std::uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

const char *refusedName(unsigned char op)
{
    switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 0x82:
    case 0x83:
    case 0x84: return "EXT";
    case 'P':
    case 'Q': return "PERSID";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
    }
}

bool textProtocolOpcode(unsigned char op)
{
    return op != 0 && std::strchr("ILSVFpg", op) != nullptr;
}

std::string hexByte(unsigned char op)
{
    static const char *digits = "0123456789abcdef";
    return std::string("0x") + digits[op >> 4] + digits[op & 15];
}

} // namespace

void PickleMachine::fail(const std::string &what) const
{
    throw PickleError("byte " + std::to_string(m_offset) + ": " + what);
}

void PickleMachine::memoMissing(std::uint64_t index) const
{
    fail("the pickle reads memo entry " + std::to_string(index) + ", which it never stored");
}

void PickleMachine::reserve(std::size_t memoEntries)
{
    m_memo.reserve(memoEntries);
}

Value PickleMachine::newContainer(ContainerKind kind)
{
    std::uint32_t index;
    if (!m_freeSlots.empty()) {
        index = m_freeSlots.back();
        m_freeSlots.pop_back();
    } else {
        if (m_slots.size() >= (std::size_t(1) << 31))
            fail("more containers than a snapshot can hold");
        index = std::uint32_t(m_slots.size());
        m_slots.emplace_back();
    }
    Slot &s = m_slots[index];
    s.kind = kind;
    s.live = true;
    s.memo = UINT32_MAX;
    s.items.clear();
    return Value::make(Value::Tag::Container, (std::uint64_t(s.generation) << 32) | index);
}

PickleMachine::Slot &PickleMachine::slot(Value v)
{
    return const_cast<Slot &>(std::as_const(*this).slot(v));
}

const PickleMachine::Slot &PickleMachine::slot(Value v) const
{
    const std::uint64_t p = v.payload();
    const std::uint32_t index = std::uint32_t(p);
    const std::uint32_t generation = std::uint32_t(p >> 32);
    if (index >= m_slots.size() || !m_slots[index].live || (m_slots[index].generation & 0x0FFFFFFF) != generation)
        fail("an object is used after it was read as a record (a shape snapshots never have)");
    return m_slots[index];
}

bool PickleMachine::isContainer(Value v, ContainerKind kind) const
{
    return v.is(Value::Tag::Container) && slot(v).kind == kind;
}

const std::vector<Value> &PickleMachine::items(Value container) const
{
    return slot(container).items;
}

Value PickleMachine::intOf(std::int64_t v)
{
    if (Value::fitsInline(v))
        return Value::smallInt(v);
    m_bigInts.push_back(v);
    return Value::make(Value::Tag::BigInt, m_bigInts.size() - 1);
}

std::int64_t PickleMachine::intValue(Value v) const
{
    switch (v.tag()) {
    case Value::Tag::Int: return v.inlineInt();
    case Value::Tag::BigInt: return m_bigInts[v.payload()];
    case Value::Tag::Bool: return std::int64_t(v.payload());
    default: return 0;
    }
}

double PickleMachine::floatValue(Value v) const
{
    return v.is(Value::Tag::Float) ? m_floats[v.payload()] : double(intValue(v));
}

std::optional<Value> PickleMachine::get(Value dict, trace::StringId key) const
{
    if (!isContainer(dict, ContainerKind::Dict))
        return std::nullopt;
    const auto &kv = items(dict);
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2)
        if (kv[i] == Value::str(key))
            return kv[i + 1];
    return std::nullopt;
}

void PickleMachine::release(Value container, Value replacement)
{
    Slot &s = slot(container);
    if (s.memo < m_memo.size() && m_memo[s.memo] == container)
        m_memo[s.memo] = replacement;
    s.live = false;
    s.generation = (s.generation + 1) & 0x0FFFFFFF;
    s.items.clear();
    if (s.items.capacity() > 64)
        s.items.shrink_to_fit(); // a slot keeps a small dict's room, never a long list's
    m_freeSlots.push_back(std::uint32_t(container.payload()));
}

Value PickleMachine::run(PickleSource &source, PickleHooks &hooks)
{
    Window in(source);
    std::vector<Value> stack;
    std::vector<std::size_t> marks;
    stack.reserve(4096);

    auto truncated = [&](std::uint64_t need) {
        const std::string why = source.error();
        if (!why.empty())
            fail(why);
        if (need > std::uint64_t(1) << 20)
            fail("a length of " + std::to_string(need) + " bytes, more than the file holds");
        fail("the file ends in the middle of the pickle: it is truncated");
    };
    auto need = [&](std::uint64_t n) {
        if (!in.ensure(n))
            truncated(n);
    };
    auto pop = [&]() {
        if (stack.empty() || (!marks.empty() && marks.back() == stack.size()))
            fail("the pickle takes a value from an empty stack");
        Value v = stack.back();
        stack.pop_back();
        return v;
    };
    auto top = [&]() -> Value & {
        if (stack.empty() || (!marks.empty() && marks.back() == stack.size()))
            fail("the pickle reads a value from an empty stack");
        return stack.back();
    };
    auto popMark = [&]() {
        if (marks.empty())
            fail("the pickle closes a MARK it never opened");
        const std::size_t m = marks.back();
        marks.pop_back();
        return m;
    };
    auto target = [&](std::size_t position, ContainerKind a, ContainerKind b, const char *what) -> Slot & {
        if (position >= stack.size() || !stack[position].is(Value::Tag::Container))
            fail(std::string(what) + " on something that is not a container");
        Slot &s = slot(stack[position]);
        if (s.kind != a && s.kind != b)
            fail(std::string(what) + " on the wrong kind of container");
        return s;
    };
    auto filled = [&](std::size_t position) {
        std::optional<Value> replacement;
        try {
            replacement = hooks.dictFilled(*this, stack[position]);
        } catch (const PickleError &e) {
            const std::string what = e.what();
            if (what.rfind("byte ", 0) == 0)
                throw;
            fail(what); // with the byte it was met at
        }
        if (replacement) {
            release(stack[position], *replacement);
            stack[position] = *replacement;
        }
    };
    auto string = [&](std::uint64_t length, bool unicode) {
        need(length);
        const auto *p = in.pos();
        if (unicode && !validUtf8(p, length))
            fail("a string that is not valid UTF-8");
        const auto id = m_strings.intern(std::string_view(reinterpret_cast<const char *>(p), length));
        in.advance(length);
        stack.push_back(Value::make(unicode ? Value::Tag::Str : Value::Tag::Bytes, id.value));
    };
    auto memoGet = [&](std::uint64_t index) {
        if (index >= m_memo.size() || m_memo[index] == kUnset) [[unlikely]]
            memoMissing(index);
        const Value v = m_memo[index];
        if (v.is(Value::Tag::Container))
            (void)slot(v); // checks that it is still the same container
        stack.push_back(v);
    };
    auto memoPut = [&](std::uint64_t index) {
        if (index > m_memo.size() + (std::uint64_t(1) << 20))
            fail("memo entry " + std::to_string(index) + " is far past the " + std::to_string(m_memo.size()) +
                 " stored");
        if (index >= m_memo.size())
            m_memo.resize(index + 1, kUnset);
        const Value v = top();
        m_memo[index] = v;
        if (v.is(Value::Tag::Container))
            slot(v).memo = std::uint32_t(std::min<std::uint64_t>(index, UINT32_MAX));
    };
    auto longInt = [&](std::uint64_t n) {
        need(n);
        const auto *p = in.pos();
        if (n <= 8 || (n == 9 && p[8] == 0)) {
            // Up to 64 bits; an unsigned 64-bit value (torch writes 2^64-1 for an unknown line)
            // wraps to a negative int64.
            std::uint64_t u = 0;
            for (std::uint64_t i = 0; i < std::min<std::uint64_t>(n, 8); ++i)
                u |= std::uint64_t(p[i]) << (8 * i);
            if (n > 0 && n < 8 && (p[n - 1] & 0x80))
                u |= ~std::uint64_t(0) << (8 * n); // sign-extend
            stack.push_back(intOf(std::int64_t(u)));
        } else {
            // Past 64 bits: kept as the nearest double (no snapshot field is that large).
            double d = 0;
            const bool negative = p[n - 1] & 0x80;
            for (std::uint64_t i = n; i-- > 0;)
                d = d * 256 + double(negative ? 0xFF - p[i] : p[i]);
            m_floats.push_back(negative ? -(d + 1) : d);
            stack.push_back(Value::make(Value::Tag::Float, m_floats.size() - 1));
        }
        in.advance(n);
    };

    for (;;) {
        if (in.available() < 16)
            (void)in.refill(16);
        if (in.available() == 0)
            truncated(1);
        m_offset = in.consumed();
        if ((++m_opcodes & 0x3FFFF) == 0) {
            hooks.progress(m_offset);
            in.releaseRead();
        }
        const unsigned char op = *in.pos();
        in.advance(1);
        switch (op) {
        case 0x80: // PROTO
            need(1);
            m_protocol = *in.pos();
            in.advance(1);
            if (m_protocol > 5)
                fail("pickle protocol " + std::to_string(m_protocol) +
                     " is newer than 5, the latest this reader knows");
            break;
        case 0x95: // FRAME: a length to skip
            need(8);
            in.advance(8);
            break;
        case '.': // STOP
            if (stack.empty())
                fail("STOP with nothing on the stack");
            return stack.back();
        case '(': marks.push_back(stack.size()); break;
        case '0': // POP
            if (!marks.empty() && marks.back() == stack.size())
                marks.pop_back();
            else
                (void)pop();
            break;
        case '1': stack.resize(popMark()); break; // POP_MARK
        case '2': stack.push_back(top()); break;  // DUP
        case 'N': stack.push_back(Value::none()); break;
        case 0x88: stack.push_back(Value::boolean(true)); break;
        case 0x89: stack.push_back(Value::boolean(false)); break;
        case 'J':
            need(4);
            stack.push_back(Value::smallInt(std::int32_t(littleEndian<std::uint32_t>(in.pos()))));
            in.advance(4);
            break;
        case 'K':
            need(1);
            stack.push_back(Value::smallInt(*in.pos()));
            in.advance(1);
            break;
        case 'M':
            need(2);
            stack.push_back(Value::smallInt(littleEndian<std::uint16_t>(in.pos())));
            in.advance(2);
            break;
        case 0x8a:
            need(1);
            {
                const auto n = *in.pos();
                in.advance(1);
                longInt(n);
            }
            break;
        case 0x8b:
            need(4);
            {
                const auto n = littleEndian<std::uint32_t>(in.pos());
                in.advance(4);
                longInt(n);
            }
            break;
        case 'G': {
            need(8);
            std::uint64_t bits = 0;
            for (int i = 0; i < 8; ++i)
                bits = (bits << 8) | in.pos()[i];
            in.advance(8);
            m_floats.push_back(std::bit_cast<double>(bits));
            stack.push_back(Value::make(Value::Tag::Float, m_floats.size() - 1));
            break;
        }
        case 0x8c:
            need(1);
            {
                const auto n = *in.pos();
                in.advance(1);
                string(n, true);
            }
            break;
        case 'X':
            need(4);
            {
                const auto n = littleEndian<std::uint32_t>(in.pos());
                in.advance(4);
                string(n, true);
            }
            break;
        case 0x8d:
            need(8);
            {
                const auto n = littleEndian<std::uint64_t>(in.pos());
                in.advance(8);
                string(n, true);
            }
            break;
        case 'U':
        case 'C':
            need(1);
            {
                const auto n = *in.pos();
                in.advance(1);
                string(n, false);
            }
            break;
        case 'T':
        case 'B':
            need(4);
            {
                const auto n = littleEndian<std::uint32_t>(in.pos());
                in.advance(4);
                string(n, false);
            }
            break;
        case 0x8e:
        case 0x96:
            need(8);
            {
                const auto n = littleEndian<std::uint64_t>(in.pos());
                in.advance(8);
                string(n, false);
            }
            break;
        case '}': stack.push_back(newContainer(ContainerKind::Dict)); break;
        case ']': stack.push_back(newContainer(ContainerKind::List)); break;
        case ')': stack.push_back(newContainer(ContainerKind::Tuple)); break;
        case 0x8f: stack.push_back(newContainer(ContainerKind::Set)); break;
        case 0x85:
        case 0x86:
        case 0x87: { // TUPLE1..3
            const std::size_t n = op - 0x84;
            if (stack.size() < n || (!marks.empty() && stack.size() - marks.back() < n))
                fail("a tuple of more values than the stack holds");
            const Value t = newContainer(ContainerKind::Tuple);
            slot(t).items.assign(stack.end() - n, stack.end());
            stack.resize(stack.size() - n);
            stack.push_back(t);
            break;
        }
        case 't':    // TUPLE
        case 'l':    // LIST
        case 'd':    // DICT
        case 0x91: { // FROZENSET
            const std::size_t m = popMark();
            const auto kind = op == 't'   ? ContainerKind::Tuple
                              : op == 'l' ? ContainerKind::List
                              : op == 'd' ? ContainerKind::Dict
                                          : ContainerKind::Set;
            if (kind == ContainerKind::Dict && (stack.size() - m) % 2)
                fail("a dict of an odd number of keys and values");
            const Value c = newContainer(kind);
            slot(c).items.assign(stack.begin() + std::ptrdiff_t(m), stack.end());
            stack.resize(m);
            stack.push_back(c);
            if (kind == ContainerKind::Dict)
                filled(stack.size() - 1);
            break;
        }
        case 'a': { // APPEND
            const Value v = pop();
            target(stack.size() - 1, ContainerKind::List, ContainerKind::List, "APPEND").items.push_back(v);
            break;
        }
        case 'e':    // APPENDS
        case 0x90: { // ADDITEMS
            const std::size_t m = popMark();
            if (m == 0)
                fail("APPENDS with no list under its MARK");
            auto &s = target(m - 1, ContainerKind::List, ContainerKind::Set, "APPENDS");
            s.items.insert(s.items.end(), stack.begin() + std::ptrdiff_t(m), stack.end());
            stack.resize(m);
            break;
        }
        case 's': { // SETITEM
            const Value v = pop();
            const Value k = pop();
            auto &s = target(stack.size() - 1, ContainerKind::Dict, ContainerKind::Dict, "SETITEM");
            s.items.push_back(k);
            s.items.push_back(v);
            filled(stack.size() - 1);
            break;
        }
        case 'u': { // SETITEMS
            const std::size_t m = popMark();
            if (m == 0)
                fail("SETITEMS with no dict under its MARK");
            if ((stack.size() - m) % 2)
                fail("SETITEMS with a key and no value");
            auto &s = target(m - 1, ContainerKind::Dict, ContainerKind::Dict, "SETITEMS");
            s.items.insert(s.items.end(), stack.begin() + std::ptrdiff_t(m), stack.end());
            stack.resize(m);
            filled(m - 1);
            break;
        }
        case 0x94: { // MEMOIZE
            const Value v = top();
            if (v.is(Value::Tag::Container))
                slot(v).memo = std::uint32_t(std::min<std::size_t>(m_memo.size(), UINT32_MAX));
            m_memo.push_back(v);
            break;
        }
        case 'q':
            need(1);
            {
                const auto i = *in.pos();
                in.advance(1);
                memoPut(i);
            }
            break;
        case 'r':
            need(4);
            {
                const auto i = littleEndian<std::uint32_t>(in.pos());
                in.advance(4);
                memoPut(i);
            }
            break;
        case 'h':
        case 'j': {
            // BINGET and LONG_BINGET come in long runs (a stack's frames, a dict's keys), mixed
            // unpredictably: read the run in one loop without a branch on which of the two it is.
            in.retreat(); // back to the opcode
            for (;;) {
                if (in.available() < 8) {
                    // the run's end, or the buffer's: one opcode the careful way
                    m_offset = in.consumed();
                    const unsigned char o = *in.pos();
                    if (o != 'h' && o != 'j')
                        break;
                    in.advance(1);
                    need(o == 'h' ? 1 : 4);
                    const std::uint64_t index = o == 'h' ? *in.pos() : littleEndian<std::uint32_t>(in.pos());
                    in.advance(o == 'h' ? 1 : 4);
                    memoGet(index);
                    if (in.available() == 0 && !in.refill(1))
                        break;
                    continue;
                }
                const unsigned char *p = in.pos();
                const bool isLong = p[0] == 'j';
                if (!isLong && p[0] != 'h')
                    break;
                const std::uint32_t wide = littleEndian<std::uint32_t>(p + 1);
                const std::uint64_t index = isLong ? wide : (wide & 0xFF);
                m_offset = in.consumed();
                in.advance(isLong ? 5 : 2);
                memoGet(index);
                ++m_opcodes;
            }
            break;
        }
        default:
            if (const char *name = refusedName(op)) {
                std::string what = std::string("opcode ") + name;
                if (op == 'c') { // name the global it asks for: module and name, each a line
                    std::string text;
                    for (std::size_t i = 0; i < 200 && in.ensure(i + 1); ++i)
                        text += in.pos()[i] == '\n' ? ' ' : char(in.pos()[i]);
                    const auto cut = text.find(' ', text.find(' ') + 1);
                    what += " (" + text.substr(0, cut) + ")";
                }
                fail(what + ", which imports a class or calls a function: a snapshot is plain data, and "
                            "this reader never runs a pickle's code");
            }
            if (textProtocolOpcode(op))
                fail("opcode '" + std::string(1, char(op)) +
                     "' of pickle protocol 0 or 1: snapshots are written with protocol 2 or later");
            fail("unknown opcode " + hexByte(op) + " (is this a pickle?)");
        }
    }
}

} // namespace pyrometer::snapshot
