// CloudPhysics VMware vscsi traces as CSV (the form libCacheSim ships),
// with a header line:
//   version,time,op,size,lbn
// version is the vscsi record version (1 or 2); time in seconds (the
// converter writes the vscsi microsecond timestamp divided by 10^6, so it
// is usually a whole number: a 1 s clock); op the SCSI opcode in hex; size
// in bytes; lbn in 512-byte sectors. The traces hold one virtual disk
// each, so the volume is 0. A CSV written with microseconds needs
// reader.time_unit: 1us.
#include "host/trace/trace_format.h"
#include "sim/registry.h"

#include <fmt/format.h>

namespace host {
namespace {

constexpr size_t kFields = 5;
constexpr uint64_t kSectorBytes = 512;

// SCSI opcodes that move data or flush the cache; any other is an error.
bool OpFromScsi(uint64_t opcode, BlockTraceRecord::Op* op) {
  switch (opcode) {
    case 0x08:  // READ(6)
    case 0x28:  // READ(10)
    case 0x88:  // READ(16)
      *op = BlockTraceRecord::Op::kRead;
      return true;
    case 0x0a:  // WRITE(6)
    case 0x2a:  // WRITE(10)
    case 0x8a:  // WRITE(16)
      *op = BlockTraceRecord::Op::kWrite;
      return true;
    case 0x35:  // SYNCHRONIZE CACHE(10)
    case 0x91:  // SYNCHRONIZE CACHE(16)
      *op = BlockTraceRecord::Op::kFlush;
      return true;
    default:
      return false;
  }
}

class CloudPhysicsParser final : public LineParser {
 public:
  explicit CloudPhysicsParser(const ParserOptions& o) : unit_ns_(o.time_unit_ns) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    std::string_view f[kFields];
    const size_t n = SplitAt(line, ',', f, kFields);
    if (n != kFields) {
      FieldCountError(n, kFields, "5 (version,time,op,size,lbn)", error);
      return LineResult::kError;
    }
    uint32_t version;
    uint64_t opcode, lbn;
    if (!ParseU32(f[0], "version", &version, error) ||
        !ParseDecimalTime(f[1], "time", unit_ns_, time_ns, error) ||
        !ParseHexU64(f[2], "op", &opcode, error) ||
        !ParseU64(f[3], "size", &rec->length_bytes, error) ||
        !ParseU64(f[4], "lbn", &lbn, error) ||
        !ScaleToBytes(lbn, kSectorBytes, "lbn", &rec->offset_bytes, error)) {
      return LineResult::kError;
    }
    if (version != 1 && version != 2) {
      *error = fmt::format("version: {} is not a vscsi record version (1 or 2)", version);
      return LineResult::kError;
    }
    if (!OpFromScsi(opcode, &rec->op)) {
      *error = fmt::format("op: unknown SCSI opcode 0x{:02x} (expected 08/28/88 read, 0a/2a/8a write, "
                           "35/91 synchronize cache)",
                           opcode);
      return LineResult::kError;
    }
    rec->volume = 0;
    rec->valid_time = true;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
};

}  // namespace

static void RegisterCloudPhysicsFormat(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "cloudphysics",
      .description = "CloudPhysics vscsi CSV (libCacheSim): version,time(s),op(SCSI hex),size(B),"
                     "lbn(512B sectors)",
      .default_time_unit = sim::Sec(1),
      .header_first_field = "version",
      .make_parser = [](const ParserOptions& o) { return std::make_unique<CloudPhysicsParser>(o); },
      .sniff_extra = nullptr,
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"cloudphysics", &RegisterCloudPhysicsFormat}};

}  // namespace host
