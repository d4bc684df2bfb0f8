#pragma once

// Helpers shared by the trace tests: write a trace text to a temporary file and load it.
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/trace/loader.h"
#endif

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>
#include <zlib.h>

namespace pyrometer::trace::testing {

inline std::filesystem::path writeFile(const QTemporaryDir &dir, const std::string &name, const std::string &text)
{
    const auto path = std::filesystem::path(dir.path().toStdString()) / name;
    std::ofstream out(path, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return path;
}

inline std::string gzipText(const std::string &text)
{
    z_stream stream{};
    deflateInit2(&stream, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&stream, static_cast<uLong>(text.size())) + 64, '\0');
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
    stream.avail_in = static_cast<uInt>(text.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    deflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

inline Result<std::shared_ptr<const Trace>> loadText(const std::string &text, const LoadOptions &options = {},
                                                     const std::string &name = "trace.json")
{
    QTemporaryDir dir;
    return loadTrace(writeFile(dir, name, text), options);
}

// Finds the first slice called name on any track; returns {track, index}.
inline std::pair<TrackId, EventIndex> findSlice(const Trace &trace, std::string_view name)
{
    for (const auto &track : trace.tracks) {
        for (std::uint32_t i = 0; i < track.size(); ++i) {
            if (trace.string(track.eventName[i]) == name)
                return {track.id, EventIndex(i)};
        }
    }
    return {};
}

} // namespace pyrometer::trace::testing
