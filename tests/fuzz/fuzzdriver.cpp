// A small stand-in for libFuzzer's main, so that every fuzz target also runs in the normal build
// (gcc, no libFuzzer) as a CTest test: it feeds LLVMFuzzerTestOneInput every seed file, then
// deterministic mutations of them (bit flips, interesting bytes, JSON values swapped for
// numbers at the edges of types or for values of other types, truncations, insertions,
// erasures, splices) from a fixed PRNG seed, until a count or a time bound is
// reached. A crash, a trap, a sanitizer report, a hang or a peak RSS over the bound names the
// input; `--only N --write FILE` writes mutation N out, for the libFuzzer build or a debugger.
//   fuzz_smoke_NAME [--seconds S] [--mutations N] [--seed N] [--max-len BYTES] [--timeout S]
//                   [--rss-limit-mb MB] [--only N [--write FILE]] SEED_FILE_OR_DIR...
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);
// Present in a sanitizer's runtime only: called when a sanitizer ends the process.
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

// What is running, for the signal handlers: a seed (its index) or a mutation (its number).
volatile std::sig_atomic_t g_seedIndex = -1;
volatile std::sig_atomic_t g_mutation = -1;
const char *g_program = "fuzz_smoke";
std::vector<std::string> g_seedNames; // not touched after the seeds are read

void writeText(const char *text)
{
    const auto ignored = ::write(STDERR_FILENO, text, std::strlen(text));
    (void)ignored;
}

void writeNumber(long value)
{
    char digits[24];
    int at = sizeof digits;
    digits[--at] = '\0';
    const bool negative = value < 0;
    unsigned long rest = negative ? 0UL - static_cast<unsigned long>(value) : static_cast<unsigned long>(value);
    do {
        digits[--at] = static_cast<char>('0' + rest % 10);
        rest /= 10;
    } while (rest != 0 && at > 1);
    if (negative)
        digits[--at] = '-';
    writeText(digits + at);
}

// Async-signal-safe: names the input that was running.
void sayWhatRan(const char *what)
{
    writeText("\n");
    writeText(g_program);
    writeText(": ");
    writeText(what);
    if (g_mutation >= 0) {
        writeText(" on mutation ");
        writeNumber(g_mutation);
        writeText(" (rerun with --only ");
        writeNumber(g_mutation);
        writeText(" --write FILE to write it out)\n");
    } else if (g_seedIndex >= 0 && static_cast<std::size_t>(g_seedIndex) < g_seedNames.size()) {
        writeText(" on seed ");
        writeText(g_seedNames[static_cast<std::size_t>(g_seedIndex)].c_str());
        writeText("\n");
    } else {
        writeText(" outside any input\n");
    }
}

const char *signalName(int signal)
{
    switch (signal) {
    case SIGALRM: return "hang (over --timeout)";
    case SIGABRT: return "abort";
    case SIGSEGV: return "segmentation fault";
    case SIGBUS: return "bus error";
    case SIGILL: return "illegal instruction (a trap)";
    case SIGFPE: return "arithmetic exception";
    default: return "signal";
    }
}

void onSignal(int signal)
{
    sayWhatRan(signalName(signal));
    if (signal == SIGALRM)
        _exit(1);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

void onSanitizerDeath()
{
    sayWhatRan("sanitizer report");
}

void installHandlers()
{
    // A sanitizer reports SEGV and friends with a stack; ours would only name the input, which
    // the death callback does then. Aborts (an uncaught exception) and hangs are ours to report.
#if defined(__SANITIZE_ADDRESS__)
    constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    constexpr bool sanitized = true;
#else
    constexpr bool sanitized = false;
#endif
#else
    constexpr bool sanitized = false;
#endif
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(onSanitizerDeath);
    std::signal(SIGABRT, onSignal);
    std::signal(SIGALRM, onSignal);
    if (!sanitized) {
        for (const int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE})
            std::signal(signal, onSignal);
    }
}

// splitmix64: small, fast, and the same sequence everywhere.
class Random {
public:
    explicit Random(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // In [0, bound); 0 when bound is 0.
    std::size_t below(std::size_t bound) { return bound == 0 ? 0 : static_cast<std::size_t>(next() % bound); }

private:
    std::uint64_t m_state;
};

constexpr std::array<std::uint8_t, 16> kInterestingBytes{0x00, 0x01, 0x7f, 0x80, 0xff, '"', '\\', '{',
                                                         '}',  '[',  ']',  ',',  ':',  '-', '.',  0x1e};

// Tokens of the formats read (JSON, Python pickles, the log folder's separator) and numbers at
// the edges of the types they are read into, separated by spaces.
constexpr std::string_view kTokens = "\" { } [ ] , : null true false \"\" {} [] -1 0 1e400 -1e400 1e19 -1e19 "
                                     "2147483648 -2147483649 4294967296 9223372036854775807 9223372036854775808 "
                                     "-9223372036854775809 18446744073709551616 1.5 1e-400 \\u0000 \\ud800 \x1e .gz "
                                     "\x80\x02 .";

// What a JSON value is replaced with: numbers at the edges of the types they are read into, and
// values of the other types.
constexpr std::string_view kValues = "0 -1 1 1e400 -1e400 1e19 -1e19 2147483648 -2147483649 4294967296 "
                                     "9223372036854775807 9223372036854775808 -9223372036854775809 "
                                     "18446744073709551616 1.5 1e300 \"\" \"1\" null true [] {} [1] {\"a\":1}";

std::vector<std::string_view> words(std::string_view text)
{
    std::vector<std::string_view> found;
    while (!text.empty()) {
        const auto space = text.find(' ');
        if (space != 0)
            found.push_back(text.substr(0, space));
        text.remove_prefix(space == std::string_view::npos ? text.size() : space + 1);
    }
    return found;
}

const std::vector<std::string_view> &tokens()
{
    static const auto list = words(kTokens);
    return list;
}

const std::vector<std::string_view> &values()
{
    static const auto list = words(kValues);
    return list;
}

bool isNumberByte(std::uint8_t c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

void insertText(Bytes &data, std::size_t at, std::string_view text)
{
    data.insert(data.begin() + static_cast<std::ptrdiff_t>(at), text.begin(), text.end());
}

void mutateOnce(Bytes &data, const std::vector<Bytes> &seeds, Random &random)
{
    const auto size = data.size();
    switch (random.below(10)) {
    case 0: // flip a bit
        if (size > 0)
            data[random.below(size)] ^= static_cast<std::uint8_t>(1U << random.below(8));
        break;
    case 1: // an interesting byte
        if (size > 0)
            data[random.below(size)] = kInterestingBytes[random.below(kInterestingBytes.size())];
        break;
    case 2: { // erase a range
        if (size == 0)
            break;
        const auto at = random.below(size);
        const auto length = 1 + random.below(std::min<std::size_t>(64, size - at));
        data.erase(data.begin() + static_cast<std::ptrdiff_t>(at),
                   data.begin() + static_cast<std::ptrdiff_t>(at + length));
        break;
    }
    case 3: { // insert random bytes
        const auto at = random.below(size + 1);
        Bytes bytes(1 + random.below(8));
        for (auto &byte : bytes)
            byte = static_cast<std::uint8_t>(random.next());
        data.insert(data.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin(), bytes.end());
        break;
    }
    case 4: { // copy a chunk elsewhere
        if (size == 0)
            break;
        const auto from = random.below(size);
        const auto length = 1 + random.below(std::min<std::size_t>(256, size - from));
        const Bytes chunk(data.begin() + static_cast<std::ptrdiff_t>(from),
                          data.begin() + static_cast<std::ptrdiff_t>(from + length));
        const auto to = random.below(size + 1);
        data.insert(data.begin() + static_cast<std::ptrdiff_t>(to), chunk.begin(), chunk.end());
        break;
    }
    case 5: // truncate
        data.resize(random.below(size + 1));
        break;
    case 6: { // splice: a prefix of this input, a suffix of another
        const auto &other = seeds[random.below(seeds.size())];
        const auto cut = random.below(size + 1);
        const auto from = random.below(other.size() + 1);
        data.resize(cut);
        data.insert(data.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
        break;
    }
    case 7: // insert a token
        insertText(data, random.below(size + 1), tokens()[random.below(tokens().size())]);
        break;
    case 8: { // replace a number or a string with another value
        if (size == 0)
            break;
        auto at = random.below(size);
        while (at < size && !(data[at] >= '0' && data[at] <= '9') && data[at] != '"')
            ++at;
        if (at == size)
            break;
        auto begin = at;
        auto end = at + 1;
        if (data[at] == '"') { // the string this quote opens (or closes: then the next one)
            while (end < size && data[end] != '"')
                end += data[end] == '\\' ? 2 : 1;
            end = std::min(end + 1, size);
        } else {
            while (begin > 0 && isNumberByte(data[begin - 1]))
                --begin;
            while (end < size && isNumberByte(data[end]))
                ++end;
        }
        data.erase(data.begin() + static_cast<std::ptrdiff_t>(begin), data.begin() + static_cast<std::ptrdiff_t>(end));
        insertText(data, begin, values()[random.below(values().size())]);
        break;
    }
    default: { // overwrite a run with one repeated byte
        if (size == 0)
            break;
        const auto at = random.below(size);
        const auto length = 1 + random.below(std::min<std::size_t>(32, size - at));
        std::fill_n(data.begin() + static_cast<std::ptrdiff_t>(at), length, static_cast<std::uint8_t>(random.next()));
        break;
    }
    }
}

// Mutation n depends on the seeds and n only, so that --only n makes the same input.
Bytes mutation(const std::vector<Bytes> &seeds, std::uint64_t prngSeed, long n, std::size_t maxLength)
{
    Random random(prngSeed * 0x100000001b3ULL + static_cast<std::uint64_t>(n));
    Bytes data = seeds[random.below(seeds.size())];
    const auto steps = 1 + random.below(4);
    for (std::size_t i = 0; i < steps; ++i)
        mutateOnce(data, seeds, random);
    if (data.size() > maxLength)
        data.resize(maxLength);
    return data;
}

void collectSeeds(const fs::path &path, std::vector<fs::path> &files)
{
    std::error_code error;
    if (fs::is_directory(path, error)) {
        std::vector<fs::path> found;
        for (const auto &entry : fs::recursive_directory_iterator(path, error))
            if (entry.is_regular_file())
                found.push_back(entry.path());
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    } else {
        files.push_back(path);
    }
}

long peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}

struct Options {
    double seconds = 6;
    long mutations = 4000;
    std::uint64_t seed = 1;
    std::size_t maxLength = 1 << 20;
    unsigned timeout = 10;
    long rssLimitMb = 2048;
    long only = -1;
    std::string write;
    std::vector<fs::path> seeds;
};

[[noreturn]] void usage(const char *problem)
{
    std::fprintf(stderr,
                 "%s: %s\nusage: %s [--seconds S] [--mutations N] [--seed N] [--max-len BYTES] [--timeout S] "
                 "[--rss-limit-mb MB] [--only N [--write FILE]] SEED_FILE_OR_DIR...\n",
                 g_program, problem, g_program);
    std::exit(2);
}

Options parse(int argc, char **argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                usage("an option lacks its value");
            return argv[++i];
        };
        if (arg == "--seconds")
            options.seconds = std::stod(value());
        else if (arg == "--mutations")
            options.mutations = std::stol(value());
        else if (arg == "--seed")
            options.seed = std::stoull(value());
        else if (arg == "--max-len")
            options.maxLength = std::stoull(value());
        else if (arg == "--timeout")
            options.timeout = static_cast<unsigned>(std::stoul(value()));
        else if (arg == "--rss-limit-mb")
            options.rssLimitMb = std::stol(value());
        else if (arg == "--only")
            options.only = std::stol(value());
        else if (arg == "--write")
            options.write = value();
        else if (arg.starts_with("--"))
            usage("unknown option");
        else
            collectSeeds(argv[i], options.seeds);
    }
    if (options.seeds.empty())
        usage("no seed files");
    return options;
}

// Runs one input under the hang alarm; false when its peak RSS went over the bound.
bool runOne(const Bytes &data, const Options &options)
{
    alarm(options.timeout);
    LLVMFuzzerTestOneInput(data.data(), data.size());
    alarm(0);
    if (peakRssMb() > options.rssLimitMb) {
        sayWhatRan("peak RSS over --rss-limit-mb");
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    g_program = argv[0];
    if (const char *slash = std::strrchr(argv[0], '/'))
        g_program = slash + 1;
    const auto options = parse(argc, argv);
    installHandlers();

    std::vector<Bytes> seeds;
    for (const auto &file : options.seeds) {
        std::ifstream in(file, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "%s: cannot read seed %s\n", g_program, file.c_str());
            return 2;
        }
        Bytes data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (data.size() > options.maxLength)
            data.resize(options.maxLength);
        seeds.push_back(std::move(data));
        g_seedNames.push_back(file.string());
    }

    if (options.only >= 0) {
        const auto data = mutation(seeds, options.seed, options.only, options.maxLength);
        if (!options.write.empty()) {
            std::ofstream out(options.write, std::ios::binary);
            out.write(reinterpret_cast<const char *>(data.data()), static_cast<std::streamsize>(data.size()));
            std::printf("%s: mutation %ld (%zu bytes) written to %s\n", g_program, options.only, data.size(),
                        options.write.c_str());
            return out ? 0 : 1;
        }
        g_mutation = static_cast<std::sig_atomic_t>(options.only);
        return runOne(data, options) ? 0 : 1;
    }

    const auto started = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    for (std::size_t i = 0; i < seeds.size(); ++i) {
        g_seedIndex = static_cast<std::sig_atomic_t>(i);
        if (!runOne(seeds[i], options))
            return 1;
    }
    g_seedIndex = -1;
    long done = 0;
    for (; done < options.mutations && elapsed() < options.seconds; ++done) {
        g_mutation = static_cast<std::sig_atomic_t>(done);
        if (!runOne(mutation(seeds, options.seed, done, options.maxLength), options))
            return 1;
    }
    g_mutation = -1;
    std::printf("%s: %zu seeds and %ld of %ld mutations (PRNG seed %llu) in %.1f s, peak RSS %ld MiB: no failure\n",
                g_program, seeds.size(), done, options.mutations, static_cast<unsigned long long>(options.seed),
                elapsed(), peakRssMb());
    return 0;
}
