#include "core/analysis/kernelnames.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace pyrometer::analysis {
namespace {

constexpr std::string_view kEllipsis = "\u2026";

bool isIdentifierChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The index of the '(' that opens the parameter list closing the name, or npos.
std::size_t parameterListStart(std::string_view name)
{
    if (name.empty() || name.back() != ')')
        return std::string_view::npos;
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
        if (name[i] == ')')
            ++depth;
        else if (name[i] == '(' && --depth == 0)
            return i;
    }
    return std::string_view::npos;
}

// The name's characters with every "ns::" qualifier dropped and template arguments below the
// first level replaced by <…>.
std::string collapse(std::string_view name)
{
    std::string out;
    out.reserve(name.size());
    int depth = 0;
    std::size_t word = 0; // where the identifier being written began in out
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '<') {
            if (++depth == 2)
                out += "<" + std::string(kEllipsis);
            else if (depth < 2)
                out += c;
            word = out.size();
            continue;
        }
        if (c == '>') {
            if (depth-- == 2)
                out += '>';
            else if (depth < 1)
                out += c;
            word = out.size();
            continue;
        }
        if (depth >= 2)
            continue;
        if (c == ':' && i + 1 < name.size() && name[i + 1] == ':') {
            out.resize(word); // drop the qualifier just written
            ++i;
            continue;
        }
        out += c;
        if (!isIdentifierChar(c))
            word = out.size();
    }
    // "> >" of older demanglers reads as ">>".
    for (std::size_t at; (at = out.find("> >")) != std::string::npos;)
        out.erase(at + 1, 1);
    return out;
}

// Reads "<length><identifier>" at pos (an Itanium source name); empty when there is none.
std::string_view sourceName(std::string_view mangled, std::size_t &pos)
{
    std::size_t length = 0;
    auto at = pos;
    while (at < mangled.size() && mangled[at] >= '0' && mangled[at] <= '9')
        length = length * 10 + static_cast<std::size_t>(mangled[at++] - '0');
    if (at == pos || length == 0 || at + length > mangled.size())
        return {};
    pos = at + length;
    return mangled.substr(at, length);
}

// What a name that __cxa_demangle refuses (CUPTI cuts names of thousands of characters short)
// still says: its qualified name and the class of its first template argument, read from the
// length-prefixed identifiers: "cutlass::device_kernel<GemmUniversal<…>>". Empty when even that
// cannot be read.
std::string partlyDemangled(std::string_view mangled)
{
    std::size_t pos = 2;
    if (pos < mangled.size() && mangled[pos] == 'N')
        ++pos;
    std::string name;
    for (auto id = sourceName(mangled, pos); !id.empty(); id = sourceName(mangled, pos))
        name += (name.empty() ? "" : "::") + std::string(id);
    if (name.empty())
        return {};
    if (pos >= mangled.size() || mangled[pos] != 'I')
        return name;
    ++pos;
    std::string_view argument;
    while (pos < mangled.size() && mangled[pos] != 'I' && mangled[pos] != 'E') {
        if (mangled[pos] >= '0' && mangled[pos] <= '9') {
            argument = sourceName(mangled, pos);
            if (argument.empty())
                break;
            continue;
        }
        if (mangled[pos] == 'S') { // a substitution, S_ or S<seq>_
            while (pos < mangled.size() && mangled[pos] != '_')
                ++pos;
        }
        ++pos;
    }
    if (argument.empty())
        return name + "<" + std::string(kEllipsis) + ">";
    return name + "<" + std::string(argument) + "<" + std::string(kEllipsis) + ">>";
}

} // namespace

std::string demangledKernelName(std::string_view name)
{
    if (!name.starts_with("_Z"))
        return std::string(name);
    const std::string mangled(name);
    int status = 0;
    const std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && demangled ? std::string(demangled.get()) : mangled;
}

std::string shortKernelName(std::string_view name, std::size_t maxLength)
{
    auto full = demangledKernelName(name);
    if (full.starts_with("_Z")) {
        if (auto partly = partlyDemangled(full); !partly.empty())
            full = std::move(partly);
    }
    std::string_view text = full;
    // Only a C++ signature gets its return type and parameters dropped: "Memcpy HtoD (Pinned ->
    // Device)" and "triton_poi_fused_0" keep theirs.
    const auto params = parameterListStart(text);
    const bool signature = params != std::string_view::npos && params > 0 &&
                           (isIdentifierChar(text[params - 1]) || text[params - 1] == '>');
    if (signature) {
        text = text.substr(0, params);
        if (text.starts_with("void "))
            text.remove_prefix(5);
    }
    std::string plain(text);
    for (std::size_t at; (at = plain.find("(anonymous namespace)::")) != std::string::npos;)
        plain.erase(at, 23);
    auto out = signature || plain.find('<') != std::string::npos ? collapse(plain) : plain;
    if (maxLength > 0 && out.size() > maxLength) {
        const auto keep = maxLength > kEllipsis.size() ? maxLength - 1 : maxLength;
        const auto head = (keep + 1) / 2;
        const auto tail = keep - head;
        // Whole UTF-8 characters only: step back past continuation bytes.
        auto headEnd = head;
        while (headEnd > 0 && (static_cast<unsigned char>(out[headEnd]) & 0xC0) == 0x80)
            --headEnd;
        auto tailStart = out.size() - tail;
        while (tailStart < out.size() && (static_cast<unsigned char>(out[tailStart]) & 0xC0) == 0x80)
            ++tailStart;
        out = out.substr(0, headEnd) + std::string(kEllipsis) + out.substr(tailStart);
    }
    return out;
}

} // namespace pyrometer::analysis
