// SNIA SYSTOR '17 VDI traces (one CSV per LUN group), with a header line:
//   Timestamp,Response,IOType,LUN,Offset,Size
// Timestamp in Unix seconds with a fraction; Response in seconds (may be
// empty, not used); IOType R or W; Offset and Size in bytes. The volume is
// the LUN.
#include "host/trace/trace_format.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr size_t kFields = 6;

class Systor17Parser final : public LineParser {
 public:
  explicit Systor17Parser(const ParserOptions& o) : unit_ns_(o.time_unit_ns) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    std::string_view f[kFields];
    const size_t n = SplitAt(line, ',', f, kFields);
    if (n != kFields) {
      FieldCountError(n, kFields, "6 (Timestamp,Response,IOType,LUN,Offset,Size)", error);
      return LineResult::kError;
    }
    WideNs response;
    if (!ParseDecimalTime(f[0], "Timestamp", unit_ns_, time_ns, error) ||
        (!f[1].empty() && !ParseDecimalTime(f[1], "Response", unit_ns_, &response, error)) ||
        !ParseReadWrite(f[2], "IOType", &rec->op, error) ||
        !ParseU32(f[3], "LUN", &rec->volume, error) ||
        !ParseU64(f[4], "Offset", &rec->offset_bytes, error) ||
        !ParseU64(f[5], "Size", &rec->length_bytes, error)) {
      return LineResult::kError;
    }
    rec->valid_time = true;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
};

}  // namespace

static void RegisterSystor17Format(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "systor17",
      .description = "SYSTOR'17 VDI CSV: Timestamp(s),Response(s),IOType(R|W),LUN,Offset(B),Size(B)",
      .default_time_unit = sim::Sec(1),
      .header_first_field = "Timestamp",
      .make_parser = [](const ParserOptions& o) { return std::make_unique<Systor17Parser>(o); },
      .sniff_extra = nullptr,
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"systor17", &RegisterSystor17Format}};

}  // namespace host
