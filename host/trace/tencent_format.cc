// Tencent cloud block storage traces (SNIA 27917), CSV without a header:
//   Timestamp,Offset,Size,IOType,VolumeID
// Timestamp in Unix seconds; Offset and Size in 512-byte sectors; IOType
// 0 = read, 1 = write. The volume is VolumeID.
#include "host/trace/trace_format.h"
#include "sim/registry.h"

#include <fmt/format.h>

namespace host {
namespace {

constexpr size_t kFields = 5;
constexpr uint64_t kSectorBytes = 512;

class TencentParser final : public LineParser {
 public:
  explicit TencentParser(const ParserOptions& o) : unit_ns_(o.time_unit_ns) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    std::string_view f[kFields];
    const size_t n = SplitAt(line, ',', f, kFields);
    if (n != kFields) {
      FieldCountError(n, kFields, "5 (Timestamp,Offset,Size,IOType,VolumeID)", error);
      return LineResult::kError;
    }
    uint64_t offset, size, type;
    if (!ParseDecimalTime(f[0], "Timestamp", unit_ns_, time_ns, error) ||
        !ParseU64(f[1], "Offset", &offset, error) ||
        !ParseU64(f[2], "Size", &size, error) ||
        !ParseU64(f[3], "IOType", &type, error) ||
        !ParseU32(f[4], "VolumeID", &rec->volume, error) ||
        !ScaleToBytes(offset, kSectorBytes, "Offset", &rec->offset_bytes, error) ||
        !ScaleToBytes(size, kSectorBytes, "Size", &rec->length_bytes, error)) {
      return LineResult::kError;
    }
    if (type > 1) {
      *error = fmt::format("IOType: unknown operation {} (expected 0 = read, 1 = write)", type);
      return LineResult::kError;
    }
    rec->op = type == 0 ? BlockTraceRecord::Op::kRead : BlockTraceRecord::Op::kWrite;
    rec->valid_time = true;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
};

}  // namespace

static void RegisterTencentFormat(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "tencent",
      .description = "Tencent CBS CSV: Timestamp(s),Offset(512B sectors),Size(512B sectors),"
                     "IOType(0=read|1=write),VolumeID",
      .default_time_unit = sim::Sec(1),
      .header_first_field = "Timestamp",
      .make_parser = [](const ParserOptions& o) { return std::make_unique<TencentParser>(o); },
      .sniff_extra = nullptr,
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"tencent", &RegisterTencentFormat}};

}  // namespace host
