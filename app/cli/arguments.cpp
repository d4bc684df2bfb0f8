#include "app/cli/arguments.h"
#include "app/cli/callcontext.h"

#include "app/cli/commands.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace pyrometer::cli {

std::string joinNames(const std::vector<std::string> &names, const std::string &sep)
{
    std::string joined;
    for (const auto &name : names)
        joined += (joined.empty() ? "" : sep) + name;
    return joined;
}

namespace {

std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// Levenshtein distance where swapping two neighbours is one edit (optimal string alignment).
std::size_t editDistance(const std::string &a, const std::string &b)
{
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// The subcommand the error arose in (the last one parsed), or app itself.
const CLI::App &failingCommand(const CLI::App &app)
{
    const auto parsed = app.get_subcommands();
    return parsed.empty() ? app : *parsed.back();
}

std::vector<std::string> commandNames(const CLI::App &app)
{
    std::vector<std::string> names;
    for (const auto *command : app.get_subcommands([](const CLI::App *) { return true; }))
        names.push_back(command->get_name());
    return names;
}

std::vector<std::string> optionNames(const CLI::App &command)
{
    std::vector<std::string> names;
    for (const auto *option : command.get_options())
        for (const auto &name : option->get_lnames())
            names.push_back("--" + name);
    return names;
}

std::string extrasMessage(const CLI::App &command, const std::string &help)
{
    const auto extras = command.remaining();
    const auto option = std::find_if(extras.begin(), extras.end(), [](const std::string &e) { return e.size() > 1 && e[0] == '-'; });
    if (option != extras.end()) {
        const auto name = option->substr(0, option->find('='));
        const auto near = closestName(name, optionNames(command));
        return "unknown option " + name + (near.empty() ? "; " + help + " lists the options" : "; did you mean " + near + "?");
    }
    return (extras.size() == 1 ? "unexpected argument " : "unexpected arguments ") + joinNames(extras, " ") + "; " + help +
           " says what it takes";
}

} // namespace

CLI::Validator choiceOf(std::vector<std::string> names, std::vector<std::string> values)
{
    return CLI::Validator(
        [names, values](std::string &input) -> std::string {
            for (std::size_t i = 0; i < names.size(); ++i)
                if (lower(input) == lower(names[i])) {
                    input = values[i];
                    return {};
                }
            return "must be one of " + joinNames(names) + " (not \"" + input + "\")";
        },
        joinNames(names, "|"), "choice");
}

CLI::Validator wholeNumberFrom(long long minimum)
{
    return CLI::Validator(
        [minimum](std::string &input) -> std::string {
            long long value = 0;
            const auto [end, ec] = std::from_chars(input.data(), input.data() + input.size(), value);
            if (ec == std::errc() && end == input.data() + input.size() && value >= minimum)
                return {};
            return "must be a whole number, " + std::to_string(minimum) + " or more (not \"" + input + "\")";
        },
        "", "whole number");
}

std::string closestName(const std::string &word, const std::vector<std::string> &candidates)
{
    const auto typo = lower(word);
    const std::size_t allowed = typo.size() <= 4 ? 1 : 2;
    std::string best;
    std::size_t bestDistance = allowed + 1;
    for (const auto &candidate : candidates) {
        const auto distance = editDistance(typo, lower(candidate));
        if (distance < bestDistance && distance < candidate.size()) {
            best = candidate;
            bestDistance = distance;
        }
    }
    return best;
}

int reportParseError(const CLI::App &app, const CLI::ParseError &error)
{
    const auto &command = failingCommand(app);
    const std::string name = &command == &app ? app.get_name() : app.get_name() + " " + command.get_name();
    const std::string help = name + " --help";
    std::string message = error.what();
    if (&command == &app && dynamic_cast<const CLI::RequiredError *>(&error) && message.rfind("A subcommand", 0) == 0) {
        message = "name a command: " + joinNames(commandNames(app)) + " (" + help + " says what each does)";
    } else if (dynamic_cast<const CLI::ExtrasError *>(&error)) {
        message = extrasMessage(command, help);
    } else if (dynamic_cast<const CLI::ValidationError *>(&error)) {
        // CLI11 writes "--by: must be one of ..."; the option's name reads as the subject.
        const auto colon = message.find(": must be ");
        if (colon != std::string::npos)
            message.erase(colon, 1);
    } else if (dynamic_cast<const CLI::ConversionError *>(&error) && message.rfind("Could not convert: ", 0) == 0) {
        const auto text = message.substr(19);
        const auto equals = text.find(" = ");
        if (equals != std::string::npos)
            message = text.substr(0, equals) + " must be a number (not \"" + text.substr(equals + 3) + "\")";
    } else if (dynamic_cast<const CLI::RequiredError *>(&error) || dynamic_cast<const CLI::ArgumentMismatch *>(&error)) {
        message += " (" + help + " says what it takes)";
    }
    cliErr() << name << ": " << message << '\n';
    return kBadInput;
}

std::string unknownCommandMessage(const CLI::App &app, int argc, const char *const *argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (!word.empty() && word[0] == '-')
            continue;
        const auto names = commandNames(app);
        if (std::find(names.begin(), names.end(), word) != names.end())
            return {};
        const auto near = closestName(word, names);
        return "unknown command " + word +
               (near.empty() ? "; the commands are " + joinNames(names) : "; did you mean " + near + "?");
    }
    return {};
}

} // namespace pyrometer::cli
