#include "core/engine/workerprotocol.h"

#include <algorithm>
#include <span>

namespace pyrometer::engine {
namespace {

using nlohmann::json;

enum class Type {
    String,
    Number,
    Integer,
    Bool,
    Strings,        // an array of strings
    Numbers,        // an array of numbers
    Integers,       // an array of integers
    IntegerLists,   // an array of arrays of integers
    Objects,        // an array of objects, each checked against Field::items
    NumberOrNull,   // a number, or null where nothing was measured
    IntegerOrString // a thread id: torch writes either
};

struct Field;
using Schema = std::span<const Field>;

struct Field {
    std::string_view name;
    Type type;
    bool required = false;
    Schema items = {}; // for Objects: each element's schema
};

bool isIntegers(const json &value)
{
    return value.is_array() &&
           std::all_of(value.begin(), value.end(), [](const json &v) { return v.is_number_integer(); });
}

bool hasType(const json &value, Type type)
{
    switch (type) {
    case Type::String: return value.is_string();
    case Type::Number: return value.is_number();
    case Type::Integer: return value.is_number_integer();
    case Type::Bool: return value.is_boolean();
    case Type::Strings:
        return value.is_array() && std::all_of(value.begin(), value.end(), [](const json &v) { return v.is_string(); });
    case Type::Numbers:
        return value.is_array() && std::all_of(value.begin(), value.end(), [](const json &v) { return v.is_number(); });
    case Type::Integers: return isIntegers(value);
    case Type::IntegerLists: return value.is_array() && std::all_of(value.begin(), value.end(), isIntegers);
    case Type::Objects:
        return value.is_array() && std::all_of(value.begin(), value.end(), [](const json &v) { return v.is_object(); });
    case Type::NumberOrNull: return value.is_number() || value.is_null();
    case Type::IntegerOrString: return value.is_number_integer() || value.is_string();
    }
    return false;
}

std::string_view typeName(Type type)
{
    switch (type) {
    case Type::String: return "a string";
    case Type::Number: return "a number";
    case Type::Integer: return "an integer";
    case Type::Bool: return "true or false";
    case Type::Strings: return "a list of strings";
    case Type::Numbers: return "a list of numbers";
    case Type::Integers: return "a list of integers";
    case Type::IntegerLists: return "a list of lists of integers";
    case Type::Objects: return "a list of objects";
    case Type::NumberOrNull: return "a number or null";
    case Type::IntegerOrString: return "an integer or a string";
    }
    return "?";
}

std::string_view describe(const json &value)
{
    switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "true or false";
    case json::value_t::string: return "a string";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::array: return "a list";
    case json::value_t::object: return "an object";
    default: return "something else";
    }
}

std::string check(const json &object, Schema schema, const std::string &where)
{
    for (const auto &field : schema) {
        const auto it = object.find(field.name);
        if (it == object.end()) {
            if (field.required)
                return where + ": '" + std::string(field.name) + "' is missing";
            continue;
        }
        if (!hasType(*it, field.type))
            return where + ": '" + std::string(field.name) + "' is " + std::string(describe(*it)) + ", not " +
                   std::string(typeName(field.type));
        if (field.type == Type::Objects && !field.items.empty()) {
            for (std::size_t i = 0; i < it->size(); ++i)
                if (auto problem = check((*it)[i], field.items,
                                         where + "." + std::string(field.name) + "[" + std::to_string(i) + "]");
                    !problem.empty())
                    return problem;
        }
    }
    return {};
}

// The items of lists, as both engines' readers take them.
constexpr Field kInput[] = {{"shape", Type::Integers}, {"dtype", Type::String}};
constexpr Field kModule[] = {{"name", Type::String},
                             {"type", Type::String},
                             {"depth", Type::Integer},
                             {"own", Type::Integer},
                             {"total", Type::Integer}};
constexpr Field kArg[] = {{"k", Type::String}, {"s", Type::Integers}, {"e", Type::Integer}, {"d", Type::String}};
constexpr Field kForwardOp[] = {{"name", Type::String},
                                {"frames", Type::Strings},
                                {"args", Type::Objects, false, kArg},
                                {"outputs", Type::IntegerLists}};
constexpr Field kProfiledOp[] = {
    {"name", Type::String},   {"start", Type::Integer},  {"dur", Type::Integer},   {"tid", Type::IntegerOrString},
    {"scope", Type::Integer}, {"depth", Type::Integer},  {"seq", Type::Integer},   {"shapes", Type::IntegerLists},
    {"types", Type::Strings}, {"frames", Type::Strings}, {"device", Type::Integer}};
constexpr Field kMemory[] = {{"t", Type::Integer},     {"tid", Type::IntegerOrString}, {"bytes", Type::Integer},
                             {"total", Type::Integer}, {"device_type", Type::Integer}, {"device", Type::Integer}};

constexpr Field kHello[] = {
    {"protocol", Type::Integer, true}, {"python", Type::String},   {"executable", Type::String},
    {"torch", Type::String},           {"devices", Type::Strings}, {"device_names", Type::Strings},
    {"cuda_reason", Type::String},     {"kineto", Type::Bool},     {"export", Type::Bool},
    {"compile", Type::Bool},           {"threads", Type::Integer}};
constexpr Field kProgress[] = {{"done", Type::Number}, {"total", Type::Number}, {"text", Type::String}};
constexpr Field kLoaded[] = {{"kind", Type::String},
                             {"modules", Type::Objects, false, kModule},
                             {"parameters", Type::Integer},
                             {"parameter_bytes", Type::Integer},
                             {"inputs", Type::Objects, false, kInput},
                             {"example_inputs", Type::Objects, false, kInput},
                             {"fixed_batch", Type::Integer},
                             {"batch_note", Type::String},
                             {"threads", Type::Integer}};
constexpr Field kLatency[] = {{"cold_ms", Type::Number}, {"samples_ms", Type::Numbers}};
constexpr Field kOps[] = {{"ops", Type::Objects, false, kForwardOp}};
constexpr Field kProfile[] = {{"ops", Type::Objects, false, kProfiledOp},
                              {"memory", Type::Objects, false, kMemory},
                              {"iterations", Type::Integer},
                              {"trace", Type::String},
                              {"device_peak", Type::Integer},
                              {"note", Type::String}};
constexpr Field kVariant[] = {{"name", Type::String},
                              {"error", Type::String},
                              {"note", Type::String},
                              {"samples_ms", Type::Numbers},
                              {"cold_ms", Type::NumberOrNull},
                              {"max_abs_diff", Type::NumberOrNull},
                              {"relative_error", Type::NumberOrNull},
                              {"params", Type::NumberOrNull}};
constexpr Field kSweepPoint[] = {
    {"variant", Type::String}, {"batch", Type::Integer}, {"samples_ms", Type::Numbers}, {"peak_bytes", Type::Integer}};
constexpr Field kSweepNote[] = {
    {"variant", Type::String}, {"batch", Type::Integer}, {"error", Type::String}, {"note", Type::String}};
constexpr Field kTaskDone[] = {{"task", Type::String}};
constexpr Field kError[] = {{"kind", Type::String}, {"message", Type::String, true}, {"detail", Type::Strings}};
constexpr Field kBegin[] = {{"of", Type::String, true}};
constexpr Field kItem[] = {{"of", Type::String, true}, {"list", Type::String, true}};

struct EventSchema {
    std::string_view event;
    Schema fields;
};

constexpr EventSchema kEvents[] = {
    {"hello", kHello},
    {"progress", kProgress},
    {"loaded", kLoaded},
    {"latency", kLatency},
    {"ops", kOps},
    {"profile", kProfile},
    {"variant", kVariant},
    {"sweep_point", kSweepPoint},
    {"sweep_skip", kSweepNote},
    {"sweep_stop", kSweepNote},
    {"task_done", kTaskDone},
    {"error", kError},
    {"done", {}},
    {"begin", kBegin},
    {"item", kItem},
    {"end", kBegin},
};

const EventSchema *schemaOf(std::string_view event)
{
    for (const auto &schema : kEvents)
        if (schema.event == event)
            return &schema;
    return nullptr;
}

// The schema of one item of a streamed result's list (empty: any object).
Schema itemSchemaOf(std::string_view of, std::string_view list)
{
    const auto *schema = schemaOf(of);
    if (!schema)
        return {};
    for (const auto &field : schema->fields)
        if (field.name == list && field.type == Type::Objects)
            return field.items;
    return {};
}

bool streamable(std::string_view of, std::string_view list)
{
    const auto *schema = schemaOf(of);
    return schema && std::any_of(schema->fields.begin(), schema->fields.end(),
                                 [&](const Field &field) { return field.name == list && field.type == Type::Objects; });
}

} // namespace

std::string protocolProblem(const nlohmann::json &message)
{
    if (!message.is_object())
        return "a message is " + std::string(describe(message)) + ", not an object";
    const auto event = message.find("event");
    if (event == message.end())
        return "a message has no 'event'";
    if (!event->is_string())
        return "'event' is " + std::string(describe(*event)) + ", not a string";
    const auto name = event->get<std::string>();
    const auto *schema = schemaOf(name);
    if (!schema)
        return "an event this Pyrometer does not know: '" + name + "'";
    return check(message, schema->fields, name);
}

Result<std::optional<nlohmann::json>> WorkerMessages::read(std::string_view line)
{
    auto message = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (message.is_discarded())
        return Error{"a line that is not JSON"};
    if (auto problem = protocolProblem(message); !problem.empty())
        return Error{std::move(problem)};
    const auto event = message["event"].get<std::string>();
    if (!m_greeted && event != "hello" && event != "error")
        return Error{"'" + event + "' before 'hello': a worker of another version"};
    if (event == "hello") {
        const auto protocol = message["protocol"].get<std::int64_t>();
        if (protocol != kWorkerProtocol)
            return Error{"a worker of protocol " + std::to_string(protocol) +
                         ", where this Pyrometer speaks protocol " + std::to_string(kWorkerProtocol)};
        m_greeted = true;
    }
    if (event == "item" && (m_bytes += line.size()) > kMaxStreamedBytes)
        return Error{"more than " + std::to_string(kMaxStreamedBytes >> 30) + " GiB in one stream"};
    if (event == "begin" || event == "item" || event == "end")
        return readStreamed(std::move(message));
    if (m_open)
        return Error{"'" + event + "' inside the stream of '" + m_open->value("event", std::string()) + "'"};
    return std::optional<nlohmann::json>(std::move(message));
}

Result<std::optional<nlohmann::json>> WorkerMessages::readStreamed(nlohmann::json message)
{
    const auto event = message["event"].get<std::string>();
    const auto of = message["of"].get<std::string>();
    if (event == "begin") {
        if (m_open)
            return Error{"a stream of '" + of + "' begins inside another"};
        if (!schemaOf(of) || of == "begin" || of == "item" || of == "end")
            return Error{"a stream of an event this Pyrometer does not know: '" + of + "'"};
        message.erase("of");
        message["event"] = of;
        if (auto problem = protocolProblem(message); !problem.empty())
            return Error{std::move(problem)};
        m_open = std::move(message);
        m_items = 0;
        m_bytes = 0;
        return std::optional<nlohmann::json>();
    }
    if (!m_open || m_open->value("event", std::string()) != of)
        return Error{"'" + event + "' of '" + of + "' outside its stream"};
    if (event == "end") {
        auto complete = std::move(*m_open);
        m_open.reset();
        return std::optional<nlohmann::json>(std::move(complete));
    }
    const auto list = message["list"].get<std::string>();
    if (!streamable(of, list))
        return Error{"'" + of + "' has no list '" + list + "' to stream"};
    const auto item = message.find("item");
    if (item == message.end() || !item->is_object())
        return Error{"an item of '" + of + "." + list + "' that is not an object"};
    if (auto problem = check(*item, itemSchemaOf(of, list), of + "." + list + "[" + std::to_string(m_items) + "]");
        !problem.empty())
        return Error{std::move(problem)};
    if (++m_items > kMaxStreamedItems)
        return Error{"more than " + std::to_string(kMaxStreamedItems) + " items in the stream of '" + of + "'"};
    auto &target = (*m_open)[list];
    if (!target.is_array())
        target = nlohmann::json::array();
    target.push_back(std::move(*item));
    return std::optional<nlohmann::json>();
}

} // namespace pyrometer::engine
