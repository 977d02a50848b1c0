// DiskSim ASCII traces and MQSim's variant of them, fields separated by
// blanks:
//   arrival_time device start_sector sector_count type
// sectors are 512 bytes; type 1 = read, 0 = write (DiskSim's read flag; no
// other value is accepted). The volume is the device number. The two names
// differ only in the unit of arrival_time: "mqsim" is nanoseconds (MQSim's
// workload files say Time_Unit NANOSECOND) and "disksim" milliseconds with
// a fraction (classic DiskSim). Detection tells them apart by whether the
// sampled times are real numbers (a decimal point or an exponent).
#include "host/trace/trace_format.h"
#include "sim/registry.h"

#include <algorithm>

#include <fmt/format.h>

namespace host {
namespace {

constexpr size_t kFields = 5;
constexpr uint64_t kSectorBytes = 512;

class DiskSimParser final : public LineParser {
 public:
  explicit DiskSimParser(const ParserOptions& o) : unit_ns_(o.time_unit_ns) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    std::string_view f[kFields];
    const size_t n = SplitBlanks(line, f, kFields);
    if (n != kFields) {
      FieldCountError(n, kFields, "5 (arrival_time device start_sector sector_count type)", error);
      return LineResult::kError;
    }
    uint64_t sector, count, type;
    if (!ParseDecimalTime(f[0], "arrival_time", unit_ns_, time_ns, error) ||
        !ParseU32(f[1], "device", &rec->volume, error) ||
        !ParseU64(f[2], "start_sector", &sector, error) ||
        !ParseU64(f[3], "sector_count", &count, error) ||
        !ParseU64(f[4], "type", &type, error) ||
        !ScaleToBytes(sector, kSectorBytes, "start_sector", &rec->offset_bytes, error) ||
        !ScaleToBytes(count, kSectorBytes, "sector_count", &rec->length_bytes, error)) {
      return LineResult::kError;
    }
    if (type > 1) {
      *error = fmt::format("type: unknown operation {} (expected 1 = read, 0 = write)", type);
      return LineResult::kError;
    }
    rec->op = type == 1 ? BlockTraceRecord::Op::kRead : BlockTraceRecord::Op::kWrite;
    rec->valid_time = true;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
};

// A time written as a real number ("12.5", or by %g "1e-05"), as DiskSim's
// milliseconds are; MQSim's nanoseconds are integers. A first field that is
// no number at all ("garbage") says nothing either way.
bool FirstFieldIsReal(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  bool real = false;
  bool digit = false;
  for (; i < line.size() && line[i] != ' ' && line[i] != '\t'; ++i) {
    const char c = line[i];
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c == '.' || c == 'e' || c == 'E') {
      real = true;
    } else if (c != '+' && c != '-') {
      return false;
    }
  }
  return real && digit;
}

std::unique_ptr<LineParser> MakeParser(const ParserOptions& o) { return std::make_unique<DiskSimParser>(o); }

}  // namespace

static void RegisterDiskSimFormats(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "mqsim",
      .description = "MQSim ASCII: arrival_time(ns) device start_sector(512B) sector_count type(1=read|0=write)",
      .default_time_unit = sim::Ns(1),
      .header_first_field = "",
      .make_parser = MakeParser,
      .sniff_extra =
          [](std::span<const std::string_view> lines) {
            return std::none_of(lines.begin(), lines.end(), FirstFieldIsReal);
          },
  });
  registry->Register(TraceFormat{
      .name = "disksim",
      .description = "DiskSim ASCII: arrival_time(ms) device start_sector(512B) sector_count type(1=read|0=write)",
      .default_time_unit = sim::Ms(1),
      .header_first_field = "",
      .make_parser = MakeParser,
      .sniff_extra =
          [](std::span<const std::string_view> lines) {
            return std::any_of(lines.begin(), lines.end(), FirstFieldIsReal);
          },
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"disksim", &RegisterDiskSimFormats}};

}  // namespace host
