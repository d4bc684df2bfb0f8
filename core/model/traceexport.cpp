#include "core/model/traceexport.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <unistd.h>

namespace pyrometer::model {
namespace {

void writeString(std::ostream &out, const std::string &text)
{
    out << '"';
    for (const unsigned char c : text) {
        switch (c) {
        case '"': out << "\\\""; break;
        case '\\': out << "\\\\"; break;
        case '\n': out << "\\n"; break;
        case '\t': out << "\\t"; break;
        case '\r': out << "\\r"; break;
        default:
            if (c < 0x20) {
                static const char *hex = "0123456789abcdef";
                out << "\\u00" << hex[c >> 4] << hex[c & 15];
            } else {
                out << char(c);
            }
        }
    }
    out << '"';
}

// ns -> "us.nnn" without going through a double (epoch microseconds exceed its precision).
void writeMicroseconds(std::ostream &out, std::int64_t ns)
{
    if (ns < 0) {
        out << '-';
        ns = -ns;
    }
    const auto fraction = ns % 1000;
    out << ns / 1000 << '.' << char('0' + fraction / 100) << char('0' + fraction / 10 % 10)
        << char('0' + fraction % 10);
}

const char *category(int scope)
{
    switch (scope) {
    case 7: return "user_annotation"; // at::RecordScope::USER_SCOPE
    case 2: return "cpu_op";          // TorchScript function ("forward")
    default: return "cpu_op";
    }
}

std::string hierarchy(const std::vector<std::string> &frames)
{
    std::string text;
    for (const auto &frame : frames)
        text += (text.empty() ? "" : ".") + frame;
    return text;
}

} // namespace

void writeChromeTrace(std::ostream &out, const RecordedProfile &profile, const std::string &traceName)
{
    const long pid = long(::getpid());
    out << "{\n\"schemaVersion\": 1,\n\"traceName\": ";
    writeString(out, traceName);
    out << ",\n\"displayTimeUnit\": \"ms\",\n\"deviceProperties\": [],\n\"traceEvents\": [\n";
    bool first = true;
    const auto next = [&] {
        out << (first ? "  " : ",\n  ");
        first = false;
    };
    std::set<std::uint64_t> threads;
    long externalId = 0;
    for (const auto &op : profile.ops) {
        threads.insert(op.threadId);
        next();
        out << "{\"ph\": \"X\", \"cat\": \"" << category(op.scope) << "\", \"name\": ";
        writeString(out, op.name);
        out << ", \"pid\": " << pid << ", \"tid\": " << op.threadId << ", \"ts\": ";
        writeMicroseconds(out, op.startNs);
        out << ", \"dur\": ";
        writeMicroseconds(out, op.durationNs);
        out << ", \"args\": {\"External id\": " << ++externalId;
        if (op.sequenceNr >= 0)
            out << ", \"Sequence number\": " << op.sequenceNr;
        if (!op.inputShapes.empty()) {
            out << ", \"Input Dims\": [";
            for (std::size_t i = 0; i < op.inputShapes.size(); ++i) {
                out << (i ? ", [" : "[");
                for (std::size_t d = 0; d < op.inputShapes[i].size(); ++d)
                    out << (d ? ", " : "") << op.inputShapes[i][d];
                out << ']';
            }
            out << ']';
        }
        if (!op.inputTypes.empty()) {
            out << ", \"Input type\": [";
            for (std::size_t i = 0; i < op.inputTypes.size(); ++i) {
                out << (i ? ", " : "");
                writeString(out, op.inputTypes[i]);
            }
            out << ']';
        }
        if (!op.moduleFrames.empty()) {
            out << ", \"Module Hierarchy\": ";
            writeString(out, hierarchy(op.moduleFrames));
        }
        out << "}}";
    }
    for (const auto &event : profile.memory) {
        threads.insert(event.threadId);
        next();
        out << "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": " << pid
            << ", \"tid\": " << event.threadId << ", \"ts\": ";
        writeMicroseconds(out, event.timeNs);
        out << ", \"args\": {\"Device Type\": " << event.deviceType << ", \"Device Id\": " << event.deviceId
            << ", \"Addr\": " << event.address << ", \"Bytes\": " << event.bytes
            << ", \"Total Allocated\": " << event.totalAllocated << ", \"Total Reserved\": 0}}";
    }
    next();
    out << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << pid << ", \"tid\": 0, \"args\": {\"name\": ";
    writeString(out, traceName);
    out << "}}";
    for (const auto thread : threads) {
        next();
        out << "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " << pid << ", \"tid\": " << thread
            << ", \"args\": {\"name\": \"thread " << thread << " (CPU)\"}}";
    }
    out << "\n]\n}\n";
}

Result<std::filesystem::path> writeChromeTrace(const std::filesystem::path &file, const RecordedProfile &profile,
                                               const std::string &traceName)
{
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out)
        return Error{file.string() + ": cannot write the trace: " + std::strerror(errno)};
    writeChromeTrace(out, profile, traceName);
    out.flush();
    if (!out)
        return Error{file.string() + ": cannot write the trace: " + std::strerror(errno)};
    return file;
}

} // namespace pyrometer::model
