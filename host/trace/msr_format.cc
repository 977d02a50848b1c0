// MSR Cambridge (SNIA IOTTA 388) block traces, one CSV file per disk:
//   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
// Timestamp and ResponseTime in Windows FILETIME ticks (100 ns); Type Read
// or Write; Offset and Size in bytes. The volume is DiskNumber.
#include "host/trace/trace_format.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr size_t kFields = 7;

class MsrParser final : public LineParser {
 public:
  explicit MsrParser(const ParserOptions& o) : unit_ns_(o.time_unit_ns) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    std::string_view f[kFields];
    const size_t n = SplitAt(line, ',', f, kFields);
    if (n != kFields) {
      FieldCountError(n, kFields, "7 (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)", error);
      return LineResult::kError;
    }
    uint64_t ticks, response;
    if (!ParseU64(f[0], "Timestamp", &ticks, error)) return LineResult::kError;
    if (f[1].empty()) {
      *error = "Hostname: empty field";
      return LineResult::kError;
    }
    if (!ParseU32(f[2], "DiskNumber", &rec->volume, error) ||
        !ParseReadWrite(f[3], "Type", &rec->op, error) ||
        !ParseU64(f[4], "Offset", &rec->offset_bytes, error) ||
        !ParseU64(f[5], "Size", &rec->length_bytes, error) ||
        !ParseU64(f[6], "ResponseTime", &response, error)) {
      return LineResult::kError;
    }
    rec->valid_time = true;
    *time_ns = static_cast<WideNs>(ticks) * unit_ns_;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
};

}  // namespace

static void RegisterMsrFormat(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "msr",
      .description = "MSR Cambridge CSV: Timestamp(100ns ticks),Hostname,DiskNumber,Type(Read|Write),"
                     "Offset(B),Size(B),ResponseTime(100ns ticks)",
      .default_time_unit = sim::Ns(100),
      .header_first_field = "Timestamp",
      .make_parser = [](const ParserOptions& o) { return std::make_unique<MsrParser>(o); },
      .sniff_extra = nullptr,
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"msr", &RegisterMsrFormat}};

}  // namespace host
