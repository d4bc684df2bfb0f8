// The On-Demand event parser, built once for the target's baseline instruction set. simdjson
// 3.0's On-Demand parser runs its stage 1 (the SIMD structural scan) and string unescaping
// through the implementation it selects at run time (icelake, haswell, westmere, fallback);
// only the scalar iteration is inlined here, so an AVX2 copy of this file was measured to gain
// nothing, and leaving it out avoids inline code compiled with -mavx2 being kept by the linker
// for the whole program (an ODR hazard on CPUs without AVX2).
#include "core/trace/eventparser.h"

#include "core/trace/timestamp.h"

#include <charconv>
#include <functional>
#include <cstring>
#include <string>
#include <utility>
#include <vector>
#include <simdjson.h>

namespace pyrometer::trace {
namespace od = simdjson::ondemand;

namespace {

template <std::size_t N>
bool keyIs(const char *key, const char (&literal)[N])
{
    // key points after the opening quote inside a padded buffer, so reading N bytes is safe.
    return std::memcmp(key, literal, N - 1) == 0 && key[N - 1] == '"';
}

bool isBlank(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && isBlank(text.back()))
        text.remove_suffix(1);
    return text;
}

// Why an event cannot be used (the file may still be fine) or the file is broken.
enum class Outcome { Ok, WrongType, Fatal };


struct Impl {
    void bind(TraceBuilder &b)
    {
        builder = &b;
        strings = &b.strings();
        for (auto &entry : shapes) // ids of another builder's pool
            entry.id = StringId();
        for (auto &entry : types)
            entry.id = StringId();
    }

    TraceBuilder *builder = nullptr;
    StringPool *strings = nullptr;
    od::parser parser;
    RawEvent raw;
    std::string problem;
    std::string compact;
    // Raw "Input Dims" texts already compacted and interned: most shapes repeat, and this
    // skips the byte-by-byte compaction and the interning of the result.
    struct Shape {
        std::string raw;
        StringId id;
    };
    static constexpr std::size_t kShapes = 512;
    std::vector<Shape> shapes = std::vector<Shape>(kShapes);
    std::vector<Shape> types = std::vector<Shape>(kShapes); // "Input type" and "Concrete Inputs" texts, as written

    Outcome fail(simdjson::error_code error)
    {
        if (error == simdjson::INCORRECT_TYPE) {
            if (problem.empty())
                problem = "a value of the wrong type";
            return Outcome::WrongType;
        }
        problem = simdjson::error_message(error);
        return Outcome::Fatal;
    }

    Outcome wrongType(const char *what)
    {
        if (problem.empty())
            problem = what;
        return Outcome::WrongType;
    }

    Outcome readString(od::value &value, std::string_view &out)
    {
        if (const auto error = value.get_string().get(out))
            return fail(error);
        return Outcome::Ok;
    }

    Outcome readStringId(od::value &value, StringId &out)
    {
        std::string_view text;
        if (const auto outcome = readString(value, text); outcome != Outcome::Ok)
            return outcome;
        out = strings->intern(text);
        return Outcome::Ok;
    }

    // Integers in args: anything else (a float, a string) is ignored, not an error.
    static bool readInteger(od::value &value, std::int64_t &out)
    {
        std::int64_t parsed = 0;
        if (!parseIntegerTo(value.raw_json_token(), parsed))
            return false;
        out = parsed;
        return true;
    }

    static bool readNumber(od::value &value, double &out)
    {
        const auto token = trim(value.raw_json_token());
        if (token.empty() || token[0] == '"')
            return false;
        const auto result = std::from_chars(token.data(), token.data() + token.size(), out);
        return result.ec == std::errc() && result.ptr == token.data() + token.size();
    }

    // ts and dur: exact nanoseconds from the literal.
    Outcome readTime(od::value &value, std::int64_t &out, const char *field)
    {
        const auto token = trim(value.raw_json_token());
        if (token.empty())
            return fail(simdjson::TAPE_ERROR);
        const char first = token[0];
        if (first == '"' || first == '{' || first == '[' || first == 't' || first == 'f' || first == 'n') {
            problem = std::string(field) + " is not a number";
            return Outcome::WrongType;
        }
        std::int64_t ns = 0;
        if (!microsToNanosTo(token, ns)) {
            problem = "invalid number '" + std::string(token.substr(0, 32)) + "' in " + field;
            return Outcome::Fatal;
        }
        out = ns;
        return Outcome::Ok;
    }

    Outcome readEntity(od::value &value, EntityId &out)
    {
        od::json_type type;
        if (const auto error = value.type().get(type))
            return fail(error);
        if (type == od::json_type::string) {
            std::string_view text;
            if (const auto outcome = readString(value, text); outcome != Outcome::Ok)
                return outcome;
            // "25738" and 25738 name the same thread (2021 traces mix them).
            if (const auto number = parseInteger(text); number && !text.empty() && text[0] != '0' && text[0] != ' ') {
                out = {*number, {}};
                return Outcome::Ok;
            }
            out = {0, strings->intern(text)};
            return Outcome::Ok;
        }
        if (type == od::json_type::number) {
            const auto token = trim(value.raw_json_token());
            if (std::int64_t number = 0; parseIntegerTo(token, number)) {
                out = {number, {}};
                return Outcome::Ok;
            }
            out = {0, strings->intern(token)};
            return Outcome::Ok;
        }
        return wrongType("pid or tid is neither a number nor a string");
    }

    Outcome readFlowId(od::value &value)
    {
        od::json_type type;
        if (const auto error = value.type().get(type))
            return fail(error);
        if (type == od::json_type::string) {
            StringId text;
            if (const auto outcome = readStringId(value, text); outcome != Outcome::Ok)
                return outcome;
            raw.flowId = (1ull << 63) | text.value;
            raw.flowIdIsText = true;
        } else if (type == od::json_type::number) {
            const auto token = trim(value.raw_json_token());
            std::uint64_t id = 0;
            const auto result = std::from_chars(token.data(), token.data() + token.size(), id);
            if (result.ec != std::errc() || result.ptr != token.data() + token.size()) {
                const auto signedId = parseInteger(token);
                if (!signedId)
                    return wrongType("flow id is not an integer");
                id = static_cast<std::uint64_t>(*signedId);
            }
            raw.flowId = id;
        } else {
            return wrongType("flow id is neither a number nor a string");
        }
        raw.hasFlowId = true;
        return Outcome::Ok;
    }

    // A collective's text arg: a string, or (for "Process Group Ranks" in some releases) an
    // array, kept as compact JSON. Other types are ignored.
    Outcome readCollectiveText(od::value &value, StringId &out)
    {
        od::json_type type;
        if (const auto error = value.type().get(type))
            return fail(error);
        if (type == od::json_type::string) {
            if (const auto outcome = readStringId(value, out); outcome != Outcome::Ok)
                return outcome;
        } else if (type == od::json_type::array) {
            od::array array;
            std::string_view text;
            if (value.get_array().get(array) != simdjson::SUCCESS || array.raw_json().get(text) != simdjson::SUCCESS)
                return Outcome::Ok;
            out = compactJson(text);
        } else {
            return Outcome::Ok;
        }
        raw.hasCollective = true;
        return Outcome::Ok;
    }

    // An extra text arg: strings only, others are ignored.
    Outcome readExtraText(od::value &value, StringId &out)
    {
        od::json_type type;
        if (const auto error = value.type().get(type))
            return fail(error);
        if (type != od::json_type::string)
            return Outcome::Ok;
        if (const auto outcome = readStringId(value, out); outcome != Outcome::Ok)
            return outcome;
        raw.hasExtra = true;
        return Outcome::Ok;
    }

    StringId compactJson(std::string_view text)
    {
        // Shapes are written pretty-printed in newer traces; interning them without blanks
        // lets equal shapes share one string.
        auto &shape = shapes[std::hash<std::string_view>()(text) & (kShapes - 1)];
        if (shape.id.isValid() && shape.raw == text)
            return shape.id;
        shape.raw.assign(text);
        shape.id = compactJsonUncached(text);
        return shape.id;
    }

    StringId internType(std::string_view text)
    {
        auto &type = types[std::hash<std::string_view>()(text) & (kShapes - 1)];
        if (type.id.isValid() && type.raw == text)
            return type.id;
        type.raw.assign(text);
        type.id = strings->intern(text);
        return type.id;
    }

    StringId compactJsonUncached(std::string_view text)
    {
        if (text.find('"') != std::string_view::npos)
            return strings->intern(text);
        compact.resize(text.size());
        char *out = compact.data();
        for (const char c : text) { // branch-free: blanks are written, then overwritten
            *out = c;
            out += !isBlank(c);
        }
        return strings->intern(std::string_view(compact.data(), static_cast<std::size_t>(out - compact.data())));
    }

    Outcome readArgs(od::value &value)
    {
        od::object args;
        if (const auto error = value.get_object().get(args))
            return error == simdjson::INCORRECT_TYPE ? Outcome::Ok : fail(error); // odd args: ignored
        raw.hasArgs = true;
        const bool wantNumbers = !raw.hasPh || raw.ph == "C";
        for (auto fieldResult : args) {
            // By reference, not copied out: copies of simdjson's small iterator structs stall
            // on store forwarding (seen in perf), once per field of every event.
            if (const auto error = fieldResult.error())
                return fail(error);
            od::field &field = fieldResult.value_unsafe();
            const char *key = field.key().raw();
            od::value &v = field.value();
            std::int64_t number = 0;
            switch (key[0]) {
            case 'c':
                if (keyIs(key, "correlation") && readInteger(v, number))
                    raw.args.correlation = number;
                break;
            case 'E':
            case 'e':
                if ((keyIs(key, "External id") || keyIs(key, "external id")) && readInteger(v, number))
                    raw.args.externalId = number;
                break;
            case 's':
                if (keyIs(key, "stream") && readInteger(v, number))
                    raw.args.stream = static_cast<std::int32_t>(number);
                else if (keyIs(key, "sort_index") && readInteger(v, number)) {
                    raw.sortIndex = number;
                    raw.hasSortIndex = true;
                }
                break;
            case 'd':
                if (keyIs(key, "device") && readInteger(v, number))
                    raw.args.device = static_cast<std::int32_t>(number);
                else if (keyIs(key, "dtype")) {
                    if (readCollectiveText(v, raw.collective.dtype) == Outcome::Fatal)
                        return Outcome::Fatal;
                    continue;
                }
                break;
            case 'C':
                if (keyIs(key, "Collective name")) {
                    if (readCollectiveText(v, raw.collective.name) == Outcome::Fatal)
                        return Outcome::Fatal;
                    continue;
                }
                if (keyIs(key, "Concrete Inputs")) {
                    od::array array;
                    std::string_view text;
                    if (v.get_array().get(array) == simdjson::SUCCESS && array.raw_json().get(text) == simdjson::SUCCESS)
                        raw.args.concreteInputs = internType(text);
                    continue;
                }
                break;
            case 'O':
                if (keyIs(key, "Out msg nelems") && readInteger(v, number)) {
                    raw.collective.outNelems = number;
                    raw.hasCollective = true;
                }
                break;
            case 'G':
                if (keyIs(key, "Group size") && readInteger(v, number)) {
                    raw.collective.groupSize = static_cast<std::int32_t>(number);
                    raw.hasCollective = true;
                }
                break;
            case 'P':
                if (keyIs(key, "Process Group Name")) {
                    if (readCollectiveText(v, raw.collective.groupName) == Outcome::Fatal)
                        return Outcome::Fatal;
                    continue;
                }
                if (keyIs(key, "Process Group Ranks")) {
                    if (readCollectiveText(v, raw.collective.groupRanks) == Outcome::Fatal)
                        return Outcome::Fatal;
                    continue;
                }
                if (keyIs(key, "Process Group Description")) {
                    if (readCollectiveText(v, raw.collective.groupDesc) == Outcome::Fatal)
                        return Outcome::Fatal;
                    continue;
                }
                break;
            case 'S':
                // Kineto writes a collective's sequence number in its group as "Seq" (its
                // "Sequence number" is autograd's, not the group's).
                if (keyIs(key, "Seq") && readInteger(v, number)) {
                    raw.collective.sequence = number;
                    raw.hasCollective = true;
                }
                break;
            case 'I':
                if (keyIs(key, "In msg nelems") && readInteger(v, number)) {
                    raw.collective.inNelems = number;
                    raw.hasCollective = true;
                    break;
                }
                if (keyIs(key, "Input Dims") || keyIs(key, "Input dims") || keyIs(key, "Input type")) {
                    od::array array;
                    std::string_view text;
                    if (v.get_array().get(array) == simdjson::SUCCESS && array.raw_json().get(text) == simdjson::SUCCESS) {
                        if (key[6] == 't')
                            raw.args.inputTypes = internType(text);
                        else
                            raw.args.inputDims = compactJson(text);
                    }
                    continue;
                }
                break;
            case 'B':
                if (keyIs(key, "Bytes") && readInteger(v, number))
                    raw.bytes = number;
                break;
            case 'T':
                if (keyIs(key, "Total Allocated") && readInteger(v, number))
                    raw.totalAllocated = number;
                else if (keyIs(key, "Total Reserved") && readInteger(v, number))
                    raw.totalReserved = number;
                break;
            case 'A':
                if (keyIs(key, "Addr") && readInteger(v, number))
                    raw.address = static_cast<std::uint64_t>(number);
                break;
            case 'D':
                if (keyIs(key, "Device Id") && readInteger(v, number))
                    raw.deviceId = static_cast<std::int32_t>(number);
                else if (keyIs(key, "Device Type") && readInteger(v, number))
                    raw.deviceType = static_cast<std::int32_t>(number);
                break;
            case 'g':
                if (keyIs(key, "graph id") && readInteger(v, number))
                    raw.args.graphId = static_cast<std::int32_t>(number);
                break;
            case 'k':
                if (key[1] == 'e' && (keyIs(key, "kernel_backend") || keyIs(key, "kernel_hash") ||
                                      keyIs(key, "kernel_file") || keyIs(key, "kernel_kwargs"))) {
                    auto &out = key[7] == 'b'   ? raw.extra.kernelBackend
                                : key[7] == 'h' ? raw.extra.kernelHash
                                : key[7] == 'f' ? raw.extra.kernelFile
                                                : raw.extra.kernelKwargs;
                    if (readExtraText(v, out) == Outcome::Fatal)
                        return Outcome::Fatal;
                    continue;
                }
                break;
            case 'w':
                if (keyIs(key, "wait_on_cuda_event_record_corr_id") && readInteger(v, number)) {
                    raw.extra.waitOnCorrelation = number;
                    raw.hasExtra = true;
                } else if (keyIs(key, "wait_on_stream") && readInteger(v, number)) {
                    raw.extra.waitOnStream = static_cast<std::int32_t>(number);
                    raw.hasExtra = true;
                }
                break;
            case 'n':
                if (keyIs(key, "name")) {
                    if (readStringId(v, raw.metaName) == Outcome::Fatal)
                        return Outcome::Fatal;
                    continue;
                }
                break;
            case 'l':
                if (keyIs(key, "labels")) {
                    if (readStringId(v, raw.metaLabels) == Outcome::Fatal)
                        return Outcome::Fatal;
                    continue;
                }
                break;
            default:
                break;
            }
            if (wantNumbers) {
                double d = 0;
                if (readNumber(v, d)) {
                    std::string_view keyText;
                    if (const auto error = field.unescaped_key().get(keyText))
                        return fail(error);
                    raw.numbers.emplace_back(strings->intern(keyText), d);
                }
            }
        }
        return Outcome::Ok;
    }

    Outcome readEvent(od::object &object)
    {
        Outcome result = Outcome::Ok;
        auto note = [&](Outcome outcome) {
            if (outcome == Outcome::Fatal || (outcome == Outcome::WrongType && result == Outcome::Ok))
                result = outcome;
            return result == Outcome::Fatal;
        };
        for (auto fieldResult : object) {
            // By reference (see readEvent).
            if (const auto error = fieldResult.error())
                return fail(error);
            od::field &field = fieldResult.value_unsafe();
            const char *key = field.key().raw();
            od::value &v = field.value();
            Outcome outcome = Outcome::Ok;
            switch (key[0]) {
            case 'p':
                if (keyIs(key, "ph")) {
                    outcome = readString(v, raw.ph);
                    raw.hasPh = outcome == Outcome::Ok;
                    if (outcome == Outcome::WrongType)
                        problem = "ph is not a string";
                } else if (keyIs(key, "pid")) {
                    outcome = readEntity(v, raw.pid);
                }
                break;
            case 't':
                if (keyIs(key, "ts")) {
                    outcome = readTime(v, raw.ts, "ts");
                    raw.hasTs = outcome == Outcome::Ok;
                } else if (keyIs(key, "tid")) {
                    outcome = readEntity(v, raw.tid);
                }
                break;
            case 'd':
                if (keyIs(key, "dur")) {
                    outcome = readTime(v, raw.dur, "dur");
                    raw.hasDur = outcome == Outcome::Ok;
                }
                break;
            case 'n':
                if (keyIs(key, "name"))
                    outcome = readStringId(v, raw.name);
                break;
            case 'c':
                if (keyIs(key, "cat"))
                    outcome = readStringId(v, raw.category);
                break;
            case 'i':
                if (keyIs(key, "id"))
                    outcome = readFlowId(v);
                break;
            case 'b':
                if (keyIs(key, "bp")) {
                    std::string_view bp;
                    outcome = readString(v, bp);
                    raw.bindEnclosing = outcome == Outcome::Ok && bp == "e";
                }
                break;
            case 's':
                if (keyIs(key, "s")) {
                    std::string_view scope;
                    outcome = readString(v, scope);
                    if (outcome == Outcome::Ok && !scope.empty())
                        raw.scope = scope[0];
                }
                break;
            case 'a':
                if (keyIs(key, "args"))
                    outcome = readArgs(v);
                break;
            default:
                break;
            }
            if (note(outcome))
                return Outcome::Fatal;
        }
        if (result == Outcome::Ok && raw.hasDur && raw.dur < 0) {
            problem = "dur is negative";
            return Outcome::WrongType;
        }
        return result;
    }
};

} // namespace

struct ChunkParser::Private : Impl {};

ChunkParser::ChunkParser() : d_ptr(std::make_unique<Private>()) {}
ChunkParser::~ChunkParser() = default;

ChunkResult ChunkParser::parse(TraceBuilder &builder, const char *chunk, std::size_t size, std::size_t capacity,
                               std::uint64_t baseOffset, const StopToken &stop)
{
    auto &d = *d_ptr;
    d.bind(builder);
    ChunkResult result;
    auto fatal = [&](std::string problem, const char *where) {
        result.ok = false;
        result.problem = std::move(problem);
        if (where && where >= chunk && where <= chunk + size)
            result.problemOffset = baseOffset + static_cast<std::uint64_t>(where - chunk);
        return result;
    };
    od::document doc;
    if (const auto error = d.parser.iterate(chunk, size, capacity).get(doc))
        return fatal(simdjson::error_message(error), nullptr);
    od::array array;
    if (const auto error = doc.get_array().get(array))
        return fatal(simdjson::error_message(error), chunk);

    std::size_t count = 0;
    for (auto elementResult : array) {
        if (const auto error = elementResult.error()) {
            const char *where = nullptr;
            if (doc.current_location().get(where) != simdjson::SUCCESS)
                where = nullptr;
            return fatal(simdjson::error_message(error), where);
        }
        od::value &element = elementResult.value_unsafe(); // not copied (see readEvent)
        const char *start = nullptr;
        if (const auto error = element.current_location().get(start))
            return fatal(simdjson::error_message(error), nullptr);
        if ((++count & 1023) == 0 && stop.stopRequested()) {
            result.stopped = true;
            return result;
        }
        d.raw.reset();
        d.problem.clear();
        d.raw.sourceOffset = baseOffset + static_cast<std::uint64_t>(start - chunk);
        od::json_type type;
        if (const auto error = element.type().get(type))
            return fatal(simdjson::error_message(error), start);
        if (type != od::json_type::object) {
            d.builder->addSkipped({}, false, d.raw.sourceOffset,
                                  "traceEvents entry at byte " + std::to_string(d.raw.sourceOffset)
                                      + " is not an object; skipped");
            ++result.eventsDone;
            continue;
        }
        od::object object;
        if (const auto error = element.get_object().get(object))
            return fatal(simdjson::error_message(error), start);
        const auto outcome = d.readEvent(object);
        if (outcome == Outcome::Fatal) {
            const char *where = nullptr;
            if (doc.current_location().get(where) != simdjson::SUCCESS)
                where = start;
            return fatal(d.problem, where);
        }
        if (outcome == Outcome::WrongType)
            d.builder->addSkipped(d.raw.ph, d.raw.hasPh, d.raw.sourceOffset,
                                  "event at byte " + std::to_string(d.raw.sourceOffset) + ": " + d.problem
                                      + "; skipped");
        else
            d.builder->add(d.raw);
        ++result.eventsDone;
    }
    return result;
}

} // namespace pyrometer::trace
