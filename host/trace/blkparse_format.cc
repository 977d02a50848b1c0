// blkparse default text output (blktrace), fields separated by blanks:
//   maj,min cpu seq time pid action RWBS sector + nsect [process]
// e.g. "8,33 30 2 0.001503478 5025 D R 540656 + 8 [systemd-udevd]".
// time in seconds from the start of the trace; sector and nsect in 512-byte
// units. Only events whose action equals ParserOptions::action become
// records ("D", dispatch to the device, by default; "Q" gives the requests
// as the block layer received them, "C" completions); other actions,
// no-data commands ("D N 0 (cdb)") and the per-CPU summary block blkparse
// prints at the end are ignored.
//
// RWBS is [F]op[E][F][A][S][M]: a leading F is a preflush, op is R, W, D
// (discard -> trim), F (flush) or N (no data), a trailing F is FUA, S sync,
// M metadata, A read-ahead. A flush without data ("FN", "FWS ... + 0")
// becomes a kFlush record. The volume is MakeDevVolume(maj, min).
#include "host/trace/trace_format.h"
#include "sim/registry.h"

#include <fmt/format.h>

namespace host {
namespace {

constexpr size_t kMaxFields = 12;
constexpr uint64_t kSectorBytes = 512;

struct Rwbs {
  char op = 'N';  // R, W, D, F or N
  uint8_t flags = 0;
};

bool ParseRwbs(std::string_view s, Rwbs* out, std::string* error) {
  *out = Rwbs();
  size_t i = 0;
  // A leading F followed by an op letter is a preflush; "F" alone is a flush.
  if (s.size() >= 2 && s[0] == 'F' &&
      (s[1] == 'R' || s[1] == 'W' || s[1] == 'D' || s[1] == 'N' || s[1] == 'F')) {
    out->flags |= BlockTraceRecord::kFlagPreflush;
    i = 1;
  }
  if (i >= s.size()) {
    *error = fmt::format("RWBS: empty '{}'", Excerpt(s));
    return false;
  }
  switch (s[i]) {
    case 'R': case 'W': case 'D': case 'F': case 'N': out->op = s[i]; break;
    default:
      *error = fmt::format("RWBS: unknown operation in '{}' (expected R, W, D, F or N)", Excerpt(s));
      return false;
  }
  ++i;
  if (out->op == 'D' && i < s.size() && s[i] == 'E') ++i;  // secure erase: still a discard
  for (; i < s.size(); ++i) {
    switch (s[i]) {
      case 'F': out->flags |= BlockTraceRecord::kFlagFua; break;
      case 'S': out->flags |= BlockTraceRecord::kFlagSync; break;
      case 'M': out->flags |= BlockTraceRecord::kFlagMeta; break;
      case 'A': break;  // read-ahead
      default:
        *error = fmt::format("RWBS: unknown flag '{}' in '{}'", Excerpt(s.substr(i, 1)), Excerpt(s));
        return false;
    }
  }
  return true;
}

bool ParseDevice(std::string_view s, uint32_t* volume, std::string* error) {
  const size_t comma = s.find(',');
  uint32_t major, minor;
  if (comma == std::string_view::npos) {
    *error = fmt::format("device: expected major,minor, got '{}'", Excerpt(s, 40));
    return false;
  }
  if (!ParseU32(s.substr(0, comma), "device major", &major, error) ||
      !ParseU32(s.substr(comma + 1), "device minor", &minor, error)) {
    return false;
  }
  if (major > kMaxDevMajor || minor > kMaxDevMinor) {
    *error = fmt::format("device {},{}: out of range (major < 4096, minor < 2^20)", major, minor);
    return false;
  }
  *volume = MakeDevVolume(major, minor);
  return true;
}

// The summary blkparse prints after the events: "CPU0 (8,33):", "Total
// (8,33):", then indented counters, "Throughput ...", "Events ...".
bool StartsSummary(std::string_view line) {
  if (line.starts_with("Total (")) return true;
  return line.size() > 4 && line.starts_with("CPU") && line[3] >= '0' && line[3] <= '9' &&
         line.find(" (") != std::string_view::npos && line.back() == ':';
}

class BlkparseParser final : public LineParser {
 public:
  explicit BlkparseParser(const ParserOptions& o) : unit_ns_(o.time_unit_ns), action_(o.action) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    if (in_summary_) return LineResult::kIgnored;
    if (StartsSummary(line)) {
      in_summary_ = true;
      return LineResult::kIgnored;
    }
    std::string_view f[kMaxFields];
    const size_t n = SplitBlanks(line, f, kMaxFields);
    if (n < 7) {
      FieldCountError(n, kMaxFields, "at least 7 (maj,min cpu seq time pid action RWBS ...)", error);
      return LineResult::kError;
    }
    uint32_t cpu;
    uint64_t seq, pid;
    if (!ParseDevice(f[0], &rec->volume, error) ||
        !ParseU32(f[1], "cpu", &cpu, error) ||
        !ParseU64(f[2], "sequence", &seq, error) ||
        !ParseDecimalTime(f[3], "time", unit_ns_, time_ns, error) ||
        !ParseU64(f[4], "pid", &pid, error)) {
      return LineResult::kError;
    }
    if (f[5] != action_) return LineResult::kIgnored;
    Rwbs rwbs;
    if (!ParseRwbs(f[6], &rwbs, error)) return LineResult::kError;
    rec->flags = rwbs.flags;
    rec->valid_time = true;

    const bool has_range = n >= 10 && f[8] == "+";
    uint64_t sector = 0, nsect = 0;
    if (has_range) {
      if (!ParseU64(f[7], "sector", &sector, error) ||
          !ParseU64(f[9], "nsect", &nsect, error) ||
          !ScaleToBytes(sector, kSectorBytes, "sector", &rec->offset_bytes, error) ||
          !ScaleToBytes(nsect, kSectorBytes, "nsect", &rec->length_bytes, error)) {
        return LineResult::kError;
      }
    }
    const bool preflush = (rwbs.flags & BlockTraceRecord::kFlagPreflush) != 0;
    switch (rwbs.op) {
      case 'F':
        rec->op = BlockTraceRecord::Op::kFlush;
        return LineResult::kRecord;
      case 'N':
        if (preflush) {
          rec->op = BlockTraceRecord::Op::kFlush;
          return LineResult::kRecord;
        }
        return LineResult::kIgnored;  // a no-data (e.g. SCSI pass-through) command
      default:
        break;
    }
    if (!has_range) {
      // A data request's event without "sector + nsect" is a pass-through
      // command ("R 8 (12 00 ..)"); anything else is malformed.
      if (n >= 9 && f[8].starts_with('(')) return LineResult::kIgnored;
      *error = "expected 'sector + nsect' after RWBS";
      return LineResult::kError;
    }
    if (rwbs.op == 'W' && preflush && nsect == 0) {
      rec->op = BlockTraceRecord::Op::kFlush;  // an empty write that only flushes
      return LineResult::kRecord;
    }
    rec->op = rwbs.op == 'R'   ? BlockTraceRecord::Op::kRead
              : rwbs.op == 'W' ? BlockTraceRecord::Op::kWrite
                               : BlockTraceRecord::Op::kTrim;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
  std::string action_;
  bool in_summary_ = false;
};

}  // namespace

static void RegisterBlkparseFormat(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "blkparse",
      .description = "blkparse text: maj,min cpu seq time(s) pid action RWBS sector + nsect [process]; "
                     "action D by default",
      .default_time_unit = sim::Sec(1),
      .header_first_field = "",
      .volume_is_device_number = true,
      .make_parser = [](const ParserOptions& o) { return std::make_unique<BlkparseParser>(o); },
      .sniff_extra = nullptr,
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"blkparse", &RegisterBlkparseFormat}};

}  // namespace host
