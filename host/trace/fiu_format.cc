// FIU SRCMap / IODedup traces (SNIA 391), fields separated by blanks:
//   ts pid process lba size op major minor md5...
// ts in nanoseconds; lba in 512-byte sectors; size in 512-byte blocks; op
// W or R; major,minor the device; then one or more content hashes (not
// used). The process name must not contain blanks. The volume is
// MakeDevVolume(major, minor). A request of many blocks in a trace with a
// hash per 512 bytes makes a long line; raise max_line for such traces.
#include "host/trace/trace_format.h"
#include "sim/registry.h"

#include <fmt/format.h>

namespace host {
namespace {

// Only the first 8 fields are read; any number of hashes may follow.
constexpr size_t kFields = 8;
constexpr uint64_t kSectorBytes = 512;

class FiuParser final : public LineParser {
 public:
  explicit FiuParser(const ParserOptions& o) : unit_ns_(o.time_unit_ns) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    std::string_view f[kFields];
    const size_t n = SplitBlanks(line, f, kFields);
    if (n < kFields) {
      FieldCountError(n, kFields, "8 or more (ts pid process lba size op major minor [md5...])", error);
      return LineResult::kError;
    }
    uint64_t pid, lba, blocks;
    uint32_t major, minor;
    if (!ParseDecimalTime(f[0], "ts", unit_ns_, time_ns, error) ||
        !ParseU64(f[1], "pid", &pid, error) ||
        !ParseU64(f[3], "lba", &lba, error) ||
        !ParseU64(f[4], "size", &blocks, error) ||
        !ParseReadWrite(f[5], "op", &rec->op, error) ||
        !ParseU32(f[6], "major", &major, error) ||
        !ParseU32(f[7], "minor", &minor, error) ||
        !ScaleToBytes(lba, kSectorBytes, "lba", &rec->offset_bytes, error) ||
        !ScaleToBytes(blocks, kSectorBytes, "size", &rec->length_bytes, error)) {
      return LineResult::kError;
    }
    if (major > kMaxDevMajor || minor > kMaxDevMinor) {
      *error = fmt::format("device {},{}: out of range (major < 4096, minor < 2^20)", major, minor);
      return LineResult::kError;
    }
    rec->volume = MakeDevVolume(major, minor);
    rec->valid_time = true;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
};

}  // namespace

static void RegisterFiuFormat(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "fiu",
      .description = "FIU (SNIA 391): ts(ns) pid process lba(512B) size(512B blocks) op(W|R) major minor md5...",
      .default_time_unit = sim::Ns(1),
      .header_first_field = "",
      .volume_is_device_number = true,
      .make_parser = [](const ParserOptions& o) { return std::make_unique<FiuParser>(o); },
      .sniff_extra = nullptr,
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"fiu", &RegisterFiuFormat}};

}  // namespace host
