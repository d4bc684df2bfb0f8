#include "core/trace/loader.h"

#include "core/trace/byteinput.h"
#include "core/trace/chunkpool.h"
#include "core/trace/eventreader.h"
#include "core/trace/jsonscan.h"
#include "core/trace/tracebuilder.h"
#include "core/trace/window.h"
#include "core/util/heap.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>
#include <simdjson.h>
#include <system_error>
#include <thread>

namespace pyrometer::trace {
namespace {

// The keys outside the events array that say what ran: the rank, the GPUs and the torch.
struct TopLevel {
    DistributedInfo distributed;
    std::vector<DeviceProperties> devices;
    std::string torchVersion;
};

DistributedInfo readDistributedInfo(simdjson::dom::element root)
{
    DistributedInfo info;
    simdjson::dom::object object;
    if (root["distributedInfo"].get(object))
        return info;
    std::int64_t number = 0;
    if (!object["rank"].get(number))
        info.rank = static_cast<int>(number);
    if (!object["world_size"].get(number))
        info.worldSize = static_cast<int>(number);
    std::string_view text;
    if (!object["backend"].get(text))
        info.backend = text;
    simdjson::dom::element config;
    if (!object["pg_config"].get(config))
        info.pgConfig = simdjson::minify(config);
    return info;
}

} // namespace

bool parseDistributedInfo(std::string_view object, DistributedInfo &info)
{
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(simdjson::padded_string("{\"distributedInfo\":" + std::string(object) + "}")).get(root))
        return false;
    info = readDistributedInfo(root);
    return true;
}

namespace {

TopLevel readTopLevel(simdjson::dom::element root)
{
    TopLevel top;
    top.distributed = readDistributedInfo(root);
    simdjson::dom::array devices;
    if (!root["deviceProperties"].get(devices)) {
        for (auto device : devices) {
            DeviceProperties properties;
            std::string_view name;
            std::int64_t number = 0;
            if (!device["name"].get(name))
                properties.name = name;
            if (!device["computeMajor"].get(number))
                properties.computeMajor = static_cast<int>(number);
            if (!device["computeMinor"].get(number))
                properties.computeMinor = static_cast<int>(number);
            top.devices.push_back(std::move(properties));
        }
    }
    std::string_view version;
    if (!root["torch_version"].get(version) || !root["pytorch_version"].get(version) ||
        !root.at_pointer("/metadata/torch_env_info/torch_version").get(version))
        top.torchVersion = version;
    return top;
}

// Bytes of events per simdjson pass. Each chunk costs a builder of its own and the absorbing of
// its strings (some 0.5 ms): of 0.5 to 16 MB, 8 MB loaded fastest (1 GB trace: 0.70 s against
// 0.80 s at 4 MB and 0.79 s at 1 MB); parsers' buffers grow with it, but are freed before the
// model is built, where the peak is.
constexpr std::size_t kChunk = 8u << 20;
// Smallest chunk (tests): well above simdjson's padding, so that a chunk being parsed never
// reads the bytes patched for a chunk scheduled after it.
constexpr std::size_t kMinChunk = 1024;
constexpr int kMaxThreads = 16;
constexpr std::size_t kMaxPrefix = 256u << 20;      // top-level keys before traceEvents
constexpr std::size_t kMaxSuffix = 64u << 20;       // and after it, validated in memory
constexpr std::size_t kMaxElement = std::size_t(1) << 31; // one event larger than this: give up

std::string atByte(std::uint64_t offset)
{
    return offset == UINT64_MAX ? std::string() : " at byte " + std::to_string(offset);
}

class Loader {
public:
    Loader(const std::filesystem::path &file, ByteInput &input, const LoadOptions &options,
           ProgressReporter &progress, const StopToken &stop)
        : m_file(file), m_input(input), m_options(options), m_progress(progress), m_stop(stop),
          m_window(input, EventReader::padding()),
          m_chunk(options.chunkBytes ? std::max(options.chunkBytes, kMinChunk) : kChunk)
    {
        int threads = options.parserThreads;
        if (threads < 0)
            threads = static_cast<int>(std::thread::hardware_concurrency());
        m_threads = std::clamp(threads, 0, kMaxThreads);
    }

    Result<std::shared_ptr<const Trace>> run(std::chrono::steady_clock::time_point started);

private:
    Error error(const std::string &problem, std::uint64_t offset = UINT64_MAX) const
    {
        std::string message = m_file.string() + ": " + problem + atByte(offset);
        if (!m_input.error().empty())
            message += " (" + m_input.error() + ")";
        return Error{message};
    }
    Error cancelled() const { return Error{m_file.string() + ": loading cancelled"}; }

    using Job = ChunkPool::Job;
    enum class Step { More, Done };

    Result<bool> findArray();
    Result<bool> readEvents();
    Result<bool> validateRest();
    // Parses [sep, end] where data[end] is the ',' or ']' after the last event of the chunk.
    ChunkResult parse(std::size_t end);
    void reportProgress();
    // Queues chunks with guessed boundaries for the worker threads: chunks of a mapped file are
    // read from the file by the worker; others are parsed in place, with brackets patched
    // around them, or copied.
    void schedule();
    void patch(std::size_t position, char c);
    // Hands a job to the workers (started on the first); false when no thread could be started.
    bool submit(const std::shared_ptr<Job> &job);
    // Absorbs the oldest queued chunk once parsed.
    Result<Step> collect();
    // Cancels the queued chunks and puts the patched bytes back.
    void drain();
    // At 1/64, 1/16, 1/4 of the file: the builder reserves room for the rest (expectRest).
    void expectRest();

    const std::filesystem::path &m_file;
    ByteInput &m_input;
    const LoadOptions &m_options;
    ProgressReporter &m_progress;
    const StopToken &m_stop;
    Window m_window;
    TraceBuilder m_builder;
    std::optional<EventReader> m_reader{std::in_place};
    std::string m_prefix;
    TopLevel m_top;
    std::size_t m_separator = 0; // window position of the '[' or ',' before the next event
    bool m_truncated = false;
    bool m_exact = false; // cut the next chunk exactly, on this thread
    std::size_t m_chunk;
    int m_threads = 0;
    // Destroyed before the window, whose bytes its workers may still be reading.
    std::unique_ptr<ChunkPool> m_pool;
    std::deque<std::shared_ptr<Job>> m_jobs;          // queued chunks, in file order
    std::vector<std::pair<std::size_t, char>> m_patches; // (position, original byte)
    std::size_t m_nextOpen = jsonscan::npos; // patched '[' for the chunk after the last queued
    double m_nextExpect = 1.0 / 64; // share of the file at which the builder next reserves ahead
};

void Loader::reportProgress()
{
    if (m_window.mapped())
        m_progress.report(m_window.offsetOf(m_separator), m_input.fileSize());
    else
        m_progress.report(m_input.fileBytesRead(), m_input.fileSize());
}

void Loader::expectRest()
{
    const auto total = m_input.fileSize();
    if (total == 0)
        return;
    // A gzip file's compressed bytes read stand for the share of its JSON.
    const auto done = m_window.mapped() ? m_window.offsetOf(m_separator) : m_input.fileBytesRead();
    const double share = static_cast<double>(done) / static_cast<double>(total);
    if (share < m_nextExpect || share > 0.5)
        return;
    m_builder.expectRest(share);
    while (m_nextExpect <= share)
        m_nextExpect *= 4;
}

void Loader::patch(std::size_t position, char c)
{
    char &byte = m_window.data()[position];
    m_patches.emplace_back(position, byte);
    byte = c;
}

void Loader::schedule()
{
    if (m_threads == 0 || m_exact)
        return;
    const auto limit = static_cast<std::size_t>(m_threads) + 2;
    char *data = m_window.data();
    while (m_jobs.size() < limit) {
        if (!m_jobs.empty() && m_jobs.back()->last)
            return;
        const std::size_t separator = m_jobs.empty() ? m_separator : m_jobs.back()->end;
        const auto text = m_window.view(separator + 1);
        if (m_window.eof() && text.size() <= m_chunk)
            return; // the end of the data is cut exactly, on this thread
        const auto boundary = jsonscan::guessBoundary(text, m_chunk);
        if (boundary == jsonscan::npos)
            return;
        auto job = std::make_shared<Job>();
        job->separator = separator;
        job->end = separator + 1 + boundary;
        job->last = data[job->end] == ']';
        if (m_window.mapped()) {
            // Read from the file into the worker's buffer (ByteInput::readAt): nothing patched.
            job->file = &m_input;
            job->fileOffset = m_window.offsetOf(separator + 1);
            job->size = job->end - separator;
            job->baseOffset = m_window.offsetOf(separator);
            if (!submit(job))
                return;
            continue;
        }
        // Where the chunk's '[' goes: the array's own, the separator itself when no chunk
        // before it is being parsed, the blank after the separator (patched when the chunk
        // before it was queued, as that chunk may read it), or a copy.
        std::size_t open = jsonscan::npos;
        if (data[separator] == '[') {
            open = separator;
        } else if (m_jobs.empty()) {
            patch(separator, '[');
            open = separator;
        } else if (m_nextOpen == separator + 1) {
            open = separator + 1;
        }
        m_nextOpen = jsonscan::npos;
        if (!job->last) {
            if (jsonscan::isSpace(data[job->end + 1])) {
                patch(job->end + 1, '[');
                m_nextOpen = job->end + 1;
            }
            patch(job->end, ']');
        }
        if (open != jsonscan::npos) {
            job->text = data + open;
            job->size = job->end - open + 1;
            job->capacity = m_window.capacityFrom(open);
            job->baseOffset = m_window.offsetOf(open);
        } else {
            job->copy = std::string_view(data + separator + 1, job->end - separator);
            job->baseOffset = m_window.offsetOf(separator);
        }
        if (!submit(job))
            return;
    }
}

bool Loader::submit(const std::shared_ptr<Job> &job)
{
    if (!m_pool) {
        try {
            m_pool = std::make_unique<ChunkPool>(m_threads, m_stop);
        } catch (const std::system_error &) { // no threads to be had: parse on this one
            m_threads = 0;
            drain();
            return false;
        }
    }
    m_pool->submit(job);
    m_jobs.push_back(job);
    return true;
}

void Loader::drain()
{
    if (m_pool)
        m_pool->cancel(m_jobs);
    m_jobs.clear();
    for (auto it = m_patches.rbegin(); it != m_patches.rend(); ++it)
        m_window.data()[it->first] = it->second;
    m_patches.clear();
    m_nextOpen = jsonscan::npos;
}

Result<Loader::Step> Loader::collect()
{
    const auto job = m_jobs.front();
    while (!m_pool->wait(*job, std::chrono::milliseconds(20))) {
        if (m_stop.stopRequested())
            return cancelled();
    }
    m_jobs.pop_front();
    if (job->result.stopped)
        return cancelled();
    if (!job->result.ok) {
        // Perhaps the guessed boundary was inside a string or a nested array: keep the events
        // done and cut the rest exactly, on this thread. The chunks after it are void.
        drain();
        m_builder.absorb(*job->builder);
        if (job->result.eventsDone > 0) {
            const auto done = jsonscan::nthSeparator(m_window.view(m_separator + 1), job->result.eventsDone);
            if (done == jsonscan::npos)
                return error("internal error: lost track of events", m_window.offsetOf(m_separator));
            m_separator += 1 + done;
        }
        m_exact = true;
        return Step::More;
    }
    m_builder.absorb(*job->builder);
    m_separator = job->end;
    m_window.release(job->separator);
    expectRest();
    return job->last ? Step::Done : Step::More;
}

Result<bool> Loader::findArray()
{
    for (;;) {
        const auto found = jsonscan::findEventsArray(m_window.view(0), m_window.eof());
        if (found.status == jsonscan::EventsArray::Status::Invalid) {
            return error(found.problem, found.problemOffset == jsonscan::npos ? UINT64_MAX : found.problemOffset);
        }
        if (found.status == jsonscan::EventsArray::Status::Found) {
            if (!found.bare)
                m_prefix.assign(m_window.data(), found.open);
            m_separator = found.open;
            return true;
        }
        if (m_window.size() >= kMaxPrefix)
            return error("no \"traceEvents\" array in the first " + std::to_string(kMaxPrefix >> 20) + " MiB");
        if (!m_window.fillMore())
            return error("cannot read the file");
    }
}

ChunkResult Loader::parse(std::size_t end)
{
    char *data = m_window.data();
    const char open = data[m_separator];
    const char close = data[end];
    data[m_separator] = '[';
    data[end] = ']';
    auto result = m_reader->parseChunk(m_builder, data + m_separator, end - m_separator + 1,
                                      m_window.capacityFrom(m_separator), m_window.offsetOf(m_separator), m_stop);
    data[m_separator] = open;
    data[end] = close;
    if (!result.ok && result.problemOffset == UINT64_MAX) {
        // Stage-one errors (invalid UTF-8, unclosed string) come without a position.
        const auto bad = jsonscan::invalidUtf8(std::string_view(data + m_separator, end - m_separator + 1));
        if (bad != jsonscan::npos) {
            result.problem = "invalid UTF-8";
            result.problemOffset = m_window.offsetOf(m_separator + bad);
        }
    }
    return result;
}

Result<bool> Loader::readEvents()
{
    for (;;) {
        if (m_stop.stopRequested()) {
            drain();
            return cancelled();
        }
        reportProgress();
        if (m_jobs.empty()) {
            drain(); // puts back the bytes patched for the chunks absorbed
            // Refill only when less than a chunk is left, so few bytes are moved to the front.
            if (!m_window.eof() && m_window.size() - m_separator < m_chunk + (1u << 20)) {
                m_window.discardBefore(m_separator);
                m_separator = 0;
                m_window.fillTo(m_window.capacity());
            }
        }
        schedule();
        if (!m_jobs.empty()) {
            const auto step = collect();
            if (!step) {
                drain();
                return step.error();
            }
            if (step.value() == Step::Done) {
                drain();
                return true;
            }
            continue;
        }
        bool &exact = m_exact;
        const auto text = m_window.view(m_separator + 1);
        if (m_window.eof() && text.size() <= m_chunk)
            exact = true;
        const auto target = std::min(m_chunk, text.size());
        std::size_t lastSeparator = jsonscan::npos;
        std::size_t badClose = jsonscan::npos;
        const auto boundary = exact ? jsonscan::exactBoundary(text, target, lastSeparator, badClose)
                                    : jsonscan::guessBoundary(text, target);
        if (boundary == jsonscan::npos) {
            if (badClose != jsonscan::npos)
                return error("'}' without a matching '{'", m_window.offsetOf(m_separator + 1 + badClose));
            if (!m_window.eof()) {
                if (text.size() >= kMaxElement)
                    return error("an event larger than 2 GiB", m_window.offsetOf(m_separator + 1));
                if (m_window.size() >= m_window.capacity())
                    m_window.grow();
                m_window.fillMore();
                continue;
            }
            if (!exact) {
                exact = true;
                continue;
            }
            // The data ends inside the array: a truncated file.
            const auto end = m_window.offsetOf(m_window.size());
            if (!m_options.partial)
                return error("unexpected end of data inside the traceEvents array (truncated file?)", end);
            m_truncated = true;
            if (lastSeparator != jsonscan::npos) {
                const auto result = parse(m_separator + 1 + lastSeparator);
                if (result.stopped)
                    return cancelled();
            }
            // After the events' own warnings, which keep file order.
            m_builder.warn("the file is truncated at byte " + std::to_string(end)
                           + "; loaded the events before it");
            return true;
        }
        const auto end = m_separator + 1 + boundary;
        const auto result = parse(end);
        if (result.stopped)
            return cancelled();
        if (!result.ok) {
            if (!exact) {
                // Perhaps the guessed boundary was inside a string or a nested array: keep the
                // events done and cut the rest exactly.
                if (result.eventsDone > 0) {
                    const auto done = jsonscan::nthSeparator(text, result.eventsDone);
                    if (done == jsonscan::npos)
                        return error("internal error: lost track of events", m_window.offsetOf(m_separator));
                    m_separator += 1 + done;
                }
                exact = true;
                continue;
            }
            if (!m_options.partial)
                return error(result.problem, result.problemOffset);
            m_truncated = true;
            m_builder.warn("stopped at an error: " + result.problem + atByte(result.problemOffset)
                           + "; loaded the events before it");
            return true;
        }
        exact = false;
        const bool last = m_window.data()[end] == ']';
        m_separator = end;
        m_window.release(m_separator);
        if (last)
            return true;
    }
}

Result<bool> Loader::validateRest()
{
    // Everything outside the events array (other top-level keys) is validated as one small
    // document: prefix + "[]" + suffix.
    m_window.discardBefore(m_separator + 1);
    std::string suffix(m_window.view(0));
    const std::uint64_t suffixOffset = m_window.offsetOf(0);
    while (!m_window.eof() && suffix.size() < kMaxSuffix) {
        m_window.discardBefore(m_window.size());
        m_window.fillMore();
        suffix += m_window.view(0);
    }
    if (!m_window.eof())
        return true; // huge trailing data: not kept in memory, not validated
    if (!m_input.error().empty())
        return error("the data after the traceEvents array is damaged");
    const std::string document = m_prefix + "[]" + suffix;
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    const auto failure = parser.parse(document).get(root);
    if (!failure) {
        m_top = readTopLevel(root);
        return true;
    }
    std::string problem = simdjson::error_message(failure);
    if (failure == simdjson::TAPE_ERROR || failure == simdjson::INCOMPLETE_ARRAY_OR_OBJECT)
        problem = "the JSON after the traceEvents array is incomplete (truncated file?)";
    if (m_options.partial) {
        m_builder.warn(problem);
        m_truncated = true;
        return true;
    }
    return error(problem, suffixOffset);
}

Result<std::shared_ptr<const Trace>> Loader::run(std::chrono::steady_clock::time_point started)
{
    m_progress.reportPermille(0);
    m_window.fillTo(m_window.capacity());
    if (auto found = findArray(); !found)
        return found.error();
    if (auto events = readEvents(); !events)
        return events.error();
    if (!m_truncated) {
        if (auto rest = validateRest(); !rest)
            return rest.error();
    } else if (!m_prefix.empty()) {
        // The keys before the events still say which rank this was.
        simdjson::dom::parser parser;
        simdjson::dom::element root;
        if (!parser.parse(m_prefix + "[]}").get(root))
            m_top = readTopLevel(root);
    }
    if (m_stop.stopRequested())
        return cancelled();
    const auto jsonBytes = m_window.offsetOf(m_window.size());
    // The text, the parsers and what the workers freed are not needed to build the model:
    // give them back first, so that they do not add to the peak of sorting the tracks.
    m_pool.reset();
    m_reader.reset();
    m_window.close();
    releaseFreedMemory();
    const auto building = std::chrono::steady_clock::now();
    auto trace = m_builder.finish(m_stop, m_threads - 1); // this thread is one of them
    if (!trace)
        return cancelled();
    trace->info.file = m_file;
    trace->info.fileBytes = m_input.fileSize();
    trace->info.jsonBytes = jsonBytes;
    trace->info.partial = m_truncated;
    trace->info.distributed = std::move(m_top.distributed);
    trace->info.devices = std::move(m_top.devices);
    trace->info.torchVersion = std::move(m_top.torchVersion);
    trace->gzipped = m_input.gzipped();
    const auto now = std::chrono::steady_clock::now();
    trace->info.loadSeconds = std::chrono::duration<double>(now - started).count();
    trace->info.buildSeconds = std::chrono::duration<double>(now - building).count();
    m_progress.finish();
    return std::shared_ptr<const Trace>(std::move(trace));
}

} // namespace

Result<std::shared_ptr<const Trace>> loadTrace(const std::filesystem::path &file, const LoadOptions &options,
                                               ProgressReporter &progress, const StopToken &stop)
{
    const auto started = std::chrono::steady_clock::now();
    auto input = ByteInput::open(file);
    if (!input)
        return input.error();
    auto trace = Loader(file, *input.value(), options, progress, stop).run(started);
    // The builder is gone, and with it the columns as they grew and the sort buffers.
    releaseFreedMemory();
    return trace;
}

Result<std::shared_ptr<const Trace>> loadTrace(const std::filesystem::path &file, const LoadOptions &options)
{
    ProgressReporter progress;
    const StopToken stop;
    return loadTrace(file, options, progress, stop);
}

} // namespace pyrometer::trace
