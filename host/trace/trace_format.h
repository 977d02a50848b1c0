// Block-trace formats: the line-parser interface and the registry of
// formats by name.
//
// A format is one .cc file (msr_format.cc, blkparse_format.cc, ...) that
// implements LineParser and describes itself in a TraceFormat registered by
// name. BuiltinFormats() holds every format of the project; an unknown name
// is an error listing the choices. Detect() picks the format of a file from
// its first lines: each format's sniffer runs the format's own parser over
// the sample (plus an optional extra test), and exactly one must accept it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "host/trace/block_record.h"
#include "host/trace/field_parse.h"
#include "sim/status.h"
#include "sim/time.h"

namespace host {

// What a parser made of one line.
enum class LineResult : uint8_t {
  kRecord,   // a request: the record is filled in
  kIgnored,  // valid but not a request (another blktrace action, a summary
             // block, a no-data command, a control event)
  kError,    // malformed; *error says why
};

// Settings a parser receives, already resolved against the format.
struct ParserOptions {
  int64_t time_unit_ns = 1;  // one unit of the trace's time field, in ns (> 0)
  std::string action = "D";  // event action taken as requests (blkparse, wiscsee)
};

class LineParser {
 public:
  virtual ~LineParser() = default;
  // Parses one line (no terminator; never blank, never a '#' comment, never
  // the format's header). On kRecord sets op, flags, offset_bytes,
  // length_bytes, volume and valid_time of *rec and, if valid_time, *time_ns
  // to the absolute time in ns since the format's epoch; the caller makes
  // time relative and sets line_no. On kError sets *error to the problem
  // (without file/line, which the caller adds). Zero lengths are returned as
  // they are; the caller applies the zero-length policy.
  virtual LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns,
                           std::string* error) = 0;
};

struct TraceFormat {
  std::string name;                  // registry key, e.g. "msr"
  std::string description;           // one line: origin and field list
  sim::SimTime default_time_unit;    // unit of the time field when not overridden
  // First field of an optional header line (case-insensitive), e.g.
  // "Timestamp"; empty if the format has no header. Only the first content
  // line of a file is tested.
  std::string header_first_field;
  // True if the volume is a Linux device number (MakeDevVolume), so reports
  // can print it as "major,minor".
  bool volume_is_device_number = false;
  std::function<std::unique_ptr<LineParser>(const ParserOptions&)> make_parser;
  // Extra test on the sample's content lines, for formats whose lines parse
  // alike (MQSim's integer ns vs DiskSim's fractional ms). Null = none.
  std::function<bool(std::span<const std::string_view> content_lines)> sniff_extra;

  // True if `line` is this format's header line.
  bool IsHeader(std::string_view line) const;
};

// True for lines every format skips: empty, blanks only, or starting with
// '#' after leading blanks.
bool IsBlankOrComment(std::string_view line);

class FormatRegistry {
 public:
  // CHECK-fails on a duplicate name or a format without a parser factory.
  void Register(TraceFormat format);

  // The format named `name`, or InvalidInput listing the registered names.
  sim::Result<const TraceFormat*> Find(std::string_view name) const;
  // Registered names in registration order.
  std::vector<std::string> Names() const;
  const std::vector<TraceFormat>& formats() const { return formats_; }

  // Picks the format of a trace from its first lines (raw, as read; blank,
  // comment and header lines are allowed). A format qualifies when its
  // parser (default options) accepts at least one line and rejects at most
  // one in ten, and its sniff_extra (if any) holds; among qualifiers the
  // one with the fewest rejected lines wins. No qualifier, or a tie, is an
  // InvalidInput naming `source` and the candidates.
  sim::Result<const TraceFormat*> Detect(std::span<const std::string> first_lines,
                                         std::string_view source) const;

 private:
  std::vector<TraceFormat> formats_;
};

// Every format of the project (every TraceFormatModule), registered once on
// first use and immutable afterwards.
const FormatRegistry& BuiltinFormats();

// A format file (one .cc each) registers the formats it defines:
//   const sim::Registrar<TraceFormatModule> kRegistered{{"msr", &RegisterMsrFormat}};
// BuiltinFormats() adds every module's formats, modules sorted by name.
struct TraceFormatModule {
  const char* name;
  void (*add)(FormatRegistry* registry);
};

}  // namespace host
