#include "ui/timeline/kernelname.h"

#include "core/analysis/kernelnames.h"

namespace pyrometer::ui::timeline {

namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)::";

bool opens(char c)
{
    return c == '<' || c == '(' || c == '{' || c == '[';
}

bool closes(char c)
{
    return c == '>' || c == ')' || c == '}' || c == ']';
}

// The end of the bracketed group opening at `from`, or the end of the text when unbalanced
// (a name cut short).
std::size_t groupEnd(std::string_view text, std::size_t from)
{
    int depth = 0;
    for (std::size_t i = from; i < text.size(); ++i) {
        if (opens(text[i]))
            ++depth;
        else if (closes(text[i]) && --depth == 0)
            return i + 1;
    }
    return text.size();
}

// The first top-level argument inside the group opening at `open`.
std::string_view firstArgument(std::string_view text, std::size_t open)
{
    int depth = 0;
    for (std::size_t i = open + 1; i < text.size(); ++i) {
        if (opens(text[i])) {
            ++depth;
        } else if (closes(text[i])) {
            if (depth-- == 0)
                return text.substr(open + 1, i - open - 1);
        } else if (text[i] == ',' && depth == 0) {
            return text.substr(open + 1, i - open - 1);
        }
    }
    return text.substr(open + 1);
}

// "Kernel", "Kernel2", "kernel", "device_kernel".
bool isLauncher(std::string_view name)
{
    if (name.starts_with("device_"))
        name.remove_prefix(7);
    if (!name.starts_with("Kernel") && !name.starts_with("kernel"))
        return false;
    name.remove_prefix(6);
    return name.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string shorten(std::string_view name, int depth)
{
    // The qualified name with its template arguments dropped, up to the parameter list; the
    // first template argument kept aside for launchers.
    std::string qualified;
    std::string_view firstTemplateArgument;
    std::size_t i = 0;
    while (i < name.size()) {
        if (name.substr(i, kAnonymous.size()) == kAnonymous) {
            i += kAnonymous.size();
            continue;
        }
        const char c = name[i];
        if (c == '<') {
            if (firstTemplateArgument.empty())
                firstTemplateArgument = firstArgument(name, i);
            i = groupEnd(name, i);
            continue;
        }
        if (c == '(' || c == '{' || c == '[')
            break; // the parameters, or a lambda's or an array's type
        qualified += c;
        ++i;
    }
    // The return type ends at the last space; the namespaces at the last "::".
    std::string_view base = qualified;
    while (!base.empty() && base.back() == ' ')
        base.remove_suffix(1);
    if (const auto space = base.rfind(' '); space != std::string_view::npos)
        base.remove_prefix(space + 1);
    if (const auto scope = base.rfind("::"); scope != std::string_view::npos)
        base.remove_prefix(scope + 2);
    if (base.empty())
        return std::string(name);
    if (depth == 0 && isLauncher(base) && !firstTemplateArgument.empty()) {
        while (!firstTemplateArgument.empty() && firstTemplateArgument.front() == ' ')
            firstTemplateArgument.remove_prefix(1);
        const std::string inner = shorten(firstTemplateArgument, depth + 1);
        if (!inner.empty())
            return inner;
    }
    return std::string(base);
}

} // namespace

std::string kernelLabel(std::string_view name)
{
    // A mangled name (CUPTI writes some so) is read as its demangled signature.
    if (name.starts_with("_Z")) {
        const auto readable = analysis::shortKernelName(name, 0);
        if (!readable.starts_with("_Z"))
            return shorten(readable, 0);
    }
    return shorten(name, 0);
}

} // namespace pyrometer::ui::timeline
