#pragma once
// Arguments that speak plainly: options whose value is one of a few names, counts that must be
// positive, and one-line messages for everything CLI11 refuses (with "did you mean" for a
// misspelt command or option).

#include <CLI/CLI.hpp>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pyrometer::cli {

// "a, b, c": names joined by sep.
std::string joinNames(const std::vector<std::string> &names, const std::string &sep = ", ");

// A check that the value is one of names, ignoring case; on success the value becomes the
// matching entry of values (what CLI11 converts into the option's type). Refuses anything else
// with "must be one of name, shape, module, stack (not "foo")".
CLI::Validator choiceOf(std::vector<std::string> names, std::vector<std::string> values);

// An option whose value is one of a few names: --help shows them as name|shape|... and the
// default (value's current one), and any other value is refused with the list.
template <class T>
CLI::Option *addChoiceOption(CLI::App &command, const std::string &flag, T &value, const std::vector<std::pair<std::string, T>> &choices,
                             const std::string &description)
{
    std::vector<std::string> names, values;
    std::string current;
    for (const auto &[name, choice] : choices) {
        names.push_back(name);
        if constexpr (std::is_enum_v<T>)
            values.push_back(std::to_string(static_cast<std::underlying_type_t<T>>(choice)));
        else
            values.push_back(choice);
        if (choice == value)
            current = name;
    }
    return command.add_option(flag, value, description + (current.empty() ? "" : " (default: " + current + ")"))
        ->transform(choiceOf(names, std::move(values)))
        ->option_text(joinNames(names, "|"));
}

// A check that the value (each value of a list) is a whole number of at least minimum:
// "must be a whole number, 1 or more (not "-3")".
CLI::Validator wholeNumberFrom(long long minimum);

// An option that counts something (N in --help): a whole number of at least minimum, with
// its default (value's current one) in the description when showDefault.
template <class T>
CLI::Option *addCountOption(CLI::App &command, const std::string &flag, T &value, long long minimum, const std::string &description,
                            bool showDefault = true)
{
    return command.add_option(flag, value, description + (showDefault ? " (default: " + std::to_string(value) + ")" : ""))
        ->check(wholeNumberFrom(minimum))
        ->option_text("N");
}

// The name of candidates closest to word by edit distance (a swap of neighbours counts once),
// when it is close enough to be a typo; empty otherwise.
std::string closestName(const std::string &word, const std::vector<std::string> &candidates);

// Says on stderr, in one line, what was wrong with the command line, and returns kBadInput.
int reportParseError(const CLI::App &app, const CLI::ParseError &error);

// The message for a first argument that names no command of app ("unknown command opz; did you
// mean ops?"); empty when the arguments start with a known command or an option.
std::string unknownCommandMessage(const CLI::App &app, int argc, const char *const *argv);

} // namespace pyrometer::cli
