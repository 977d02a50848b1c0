// UMass Trace Repository SPC traces (Financial1/2, WebSearch1-3), CSV:
//   ASU,LBA,Size,Opcode,Timestamp[,optional fields...]
// ASU is the application storage unit (the volume); LBA in 512-byte sectors
// within the ASU; Size in bytes; Opcode r or w; Timestamp in seconds from
// the start of the trace. Fields after Timestamp are allowed and ignored.
#include "host/trace/trace_format.h"
#include "sim/registry.h"

namespace host {
namespace {

// Only the first 5 fields are read; optional ones may follow.
constexpr size_t kFields = 5;
constexpr uint64_t kSectorBytes = 512;

class UmassSpcParser final : public LineParser {
 public:
  explicit UmassSpcParser(const ParserOptions& o) : unit_ns_(o.time_unit_ns) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    std::string_view f[kFields];
    const size_t n = SplitAt(line, ',', f, kFields);
    if (n < kFields) {
      FieldCountError(n, kFields, "5 or more (ASU,LBA,Size,Opcode,Timestamp[,...])", error);
      return LineResult::kError;
    }
    uint64_t lba;
    if (!ParseU32(f[0], "ASU", &rec->volume, error) ||
        !ParseU64(f[1], "LBA", &lba, error) ||
        !ScaleToBytes(lba, kSectorBytes, "LBA", &rec->offset_bytes, error) ||
        !ParseU64(f[2], "Size", &rec->length_bytes, error) ||
        !ParseReadWrite(f[3], "Opcode", &rec->op, error) ||
        !ParseDecimalTime(f[4], "Timestamp", unit_ns_, time_ns, error)) {
      return LineResult::kError;
    }
    rec->valid_time = true;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
};

}  // namespace

static void RegisterUmassSpcFormat(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "umass_spc",
      .description = "UMass SPC CSV: ASU,LBA(512B sectors),Size(B),Opcode(r|w),Timestamp(s)[,...]",
      .default_time_unit = sim::Sec(1),
      .header_first_field = "",
      .make_parser = [](const ParserOptions& o) { return std::make_unique<UmassSpcParser>(o); },
      .sniff_extra = nullptr,
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"umass_spc", &RegisterUmassSpcFormat}};

}  // namespace host
