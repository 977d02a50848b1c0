// Streaming readers for block-level I/O traces.
//
//   host::BlockTraceOptions opt;              // format "" = detect from content
//   FS_ASSIGN_OR_RETURN(auto reader, host::OpenBlockTrace("hm_0.csv.gz", opt));
//   host::BlockTraceRecord rec;
//   for (;;) {
//     FS_ASSIGN_OR_RETURN(bool more, reader->Next(&rec));
//     if (!more) break;
//     ...
//   }
//
// A reader holds one line buffer and one parser whatever the file size;
// Next() allocates nothing on the success path. Input may be plain or
// gzip/bzip2/xz/zstd compressed (see line_source.h). Formats are listed in
// traces/FORMATS.md and registered in trace_format.h.
//
// Line handling common to every format: blank lines and lines starting with
// '#' are ignored; the first content line is ignored if it is the format's
// header; a line longer than max_line is malformed.
//
// Malformed lines: with on_error "fail" (default) Next() returns
// InvalidInput "path:line: problem: <the line, at most 200 bytes>" and
// keeps returning it; with "skip" the line is counted in stats().skipped,
// the first max_kept_errors messages are kept in stats().first_errors, and
// reading continues. A corrupt compressed stream always fails.
//
// Zero-length reads, writes and trims carry no work for a device: with
// zero_length "drop" (default) they are counted in
// stats().zero_length_dropped and not returned; with "error" they are
// malformed lines.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/trace/block_record.h"
#include "host/trace/line_source.h"
#include "host/trace/trace_format.h"
#include "sim/config.h"
#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace host {

struct BlockTraceOptions {
  std::string format;                 // registered name; "" = detect from the first lines
  std::string on_error = "fail";      // "fail" | "skip"
  std::string zero_length = "drop";   // "drop" | "error"
  sim::SimTime time_unit;             // unit of the time field; 0 = the format's own
  std::string action = "D";           // blkparse/wiscsee action taken as requests
  sim::Bytes max_line{64 * 1024};     // longest accepted line
  uint32_t max_kept_errors = 5;       // messages kept in skip mode

  static void Describe(sim::Schema<BlockTraceOptions>& s);
};

struct BlockTraceStats {
  uint64_t lines = 0;                // lines read, of every kind
  uint64_t records = 0;              // records returned by Next()
  uint64_t ignored = 0;              // blank, comment, header and non-request lines
  uint64_t skipped = 0;              // malformed lines dropped (on_error "skip")
  uint64_t zero_length_dropped = 0;  // zero-length requests dropped (zero_length "drop")
  uint64_t time_backwards = 0;       // records earlier than the record before them
  std::vector<std::string> first_errors;  // first max_kept_errors skip messages
};

class BlockTraceReader {
 public:
  virtual ~BlockTraceReader() = default;

  // Reads the next record into *rec. Returns true if one was read, false at
  // the end of the trace, or InvalidInput for a malformed line (fail mode)
  // or an unreadable stream. After an error every call returns it again.
  virtual sim::Result<bool> Next(BlockTraceRecord* rec) = 0;

  virtual const std::string& path() const = 0;
  virtual const TraceFormat& trace_format() const = 0;  // the format in use
  // One unit of the time field as read: the time_unit option, else the
  // format's default.
  virtual sim::SimTime time_unit() const = 0;
  std::string_view format() const { return trace_format().name; }
  virtual Compression compression() const = 0;
  virtual const BlockTraceStats& stats() const = 0;

  uint64_t lines() const { return stats().lines; }
  uint64_t records() const { return stats().records; }
  uint64_t skipped() const { return stats().skipped; }
};

// Opens the trace at `path`. Errors: NotFound if it cannot be opened;
// InvalidInput for bad options, an unknown format name (listing the
// choices) or a format that cannot be detected. Detection reads up to 256
// lines ahead (replayed by Next()). `formats` must outlive the reader.
sim::Result<std::unique_ptr<BlockTraceReader>> OpenBlockTrace(
    const std::string& path, const BlockTraceOptions& options,
    const FormatRegistry& formats = BuiltinFormats());

// As OpenBlockTrace, over `data` (possibly compressed) named `name` in
// messages. `data` must outlive the reader.
sim::Result<std::unique_ptr<BlockTraceReader>> OpenBlockTraceFromMemory(
    std::string name, std::string_view data, const BlockTraceOptions& options,
    const FormatRegistry& formats = BuiltinFormats());

}  // namespace host
