// Alibaba cloud block traces (alibaba/block-traces), CSV:
//   device_id,opcode,offset,length,timestamp
// opcode R or W; offset and length in bytes; timestamp in microseconds.
// The volume is device_id.
#include "host/trace/trace_format.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr size_t kFields = 5;

class AlibabaParser final : public LineParser {
 public:
  explicit AlibabaParser(const ParserOptions& o) : unit_ns_(o.time_unit_ns) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    std::string_view f[kFields];
    const size_t n = SplitAt(line, ',', f, kFields);
    if (n != kFields) {
      FieldCountError(n, kFields, "5 (device_id,opcode,offset,length,timestamp)", error);
      return LineResult::kError;
    }
    if (!ParseU32(f[0], "device_id", &rec->volume, error) ||
        !ParseReadWrite(f[1], "opcode", &rec->op, error) ||
        !ParseU64(f[2], "offset", &rec->offset_bytes, error) ||
        !ParseU64(f[3], "length", &rec->length_bytes, error) ||
        !ParseDecimalTime(f[4], "timestamp", unit_ns_, time_ns, error)) {
      return LineResult::kError;
    }
    rec->valid_time = true;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
};

}  // namespace

static void RegisterAlibabaFormat(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "alibaba",
      .description = "Alibaba block-traces CSV: device_id,opcode(R|W),offset(B),length(B),timestamp(us)",
      .default_time_unit = sim::Us(1),
      .header_first_field = "device_id",
      .make_parser = [](const ParserOptions& o) { return std::make_unique<AlibabaParser>(o); },
      .sniff_extra = nullptr,
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"alibaba", &RegisterAlibabaFormat}};

}  // namespace host
