#pragma once
// The server's tools, declared once: each tool's input schema, the check of a call's arguments
// and the subcommand's command line are all made from the same declaration, so a tool takes
// exactly the filters its subcommand takes, under the same names.
#include <nlohmann/json.hpp>

#include <climits>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer::cli::mcp {

enum class DocKind { Trace, Job, Snapshot, Model };
const char *docKindName(DocKind kind);

// One argument of a tool.
struct Argument {
    enum class Type { String, Integer, Number, Boolean, StringList, Handle };
    std::string name; // as the tool takes it: snake_case
    std::string flag; // the subcommand's option ("--top"); empty: positional (handles) or the tool's own
    Type type = Type::String;
    std::string description;
    std::vector<std::string> choices = {}; // a string's allowed values
    long long minimum = LLONG_MIN;         // an integer's
    bool required = false;
    std::vector<DocKind> kinds = {}; // a handle's kinds of document
};

struct Tool {
    enum class Action { Open, Close, Documents, Command, Summary, Report };
    std::string name;
    std::string title;
    std::string description;
    Action action = Action::Command;
    std::string command; // the subcommand (Command), or what Open opens ("trace", "job", ...)
    std::vector<Argument> arguments;
    bool readOnly = true;
};

const std::vector<Tool> &tools();
const Tool *findTool(const std::string &name);

// The tool as tools/list gives it: name, title, description, inputSchema, annotations.
nlohmann::json toolJson(const Tool &tool);

// Why a call's arguments do not fit the tool's schema (unknown, missing, wrong type, out of
// range), or nothing.
std::optional<std::string> checkArguments(const Tool &tool, const nlohmann::json &arguments);

// The subcommand's options for a call's (checked) arguments, with each handle argument's path
// from pathOf; positional handles first, in declaration order.
std::vector<std::string> commandLine(const Tool &tool, const nlohmann::json &arguments,
                                     const std::function<std::string(const std::string &handle)> &pathOf);

} // namespace pyrometer::cli::mcp
