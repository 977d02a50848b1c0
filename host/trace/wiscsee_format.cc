// WiscSee FTL-simulator event files, fields separated by blanks:
//   pid action operation offset size timestamp pre_wait_time sync
// action D (dispatch) or C (complete): only events whose action equals
// ParserOptions::action ("D" by default) become records. operation read,
// write or discard (-> trim); WiscSee's control events (enable_recorder,
// disable_recorder, workloadstart, barrier, noop, ...) are ignored. offset
// and size in bytes; timestamp in seconds, or "None" for generated events
// (the record then has no time); pre_wait_time in seconds or "None" (not
// used); sync True or False. WiscSee traces one device, so the volume is 0.
#include "host/trace/trace_format.h"
#include "sim/registry.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace host {
namespace {

constexpr size_t kFields = 8;

constexpr std::array<std::string_view, 9> kControlOps = {
    "enable_recorder", "disable_recorder", "workloadstart", "shut_ssd", "barrier",
    "noop",            "rec_timestamp",    "clean",         "finish",
};

class WiscSeeParser final : public LineParser {
 public:
  explicit WiscSeeParser(const ParserOptions& o) : unit_ns_(o.time_unit_ns), action_(o.action) {}

  LineResult Parse(std::string_view line, BlockTraceRecord* rec, WideNs* time_ns, std::string* error) override {
    std::string_view f[kFields];
    const size_t n = SplitBlanks(line, f, kFields);
    if (n != kFields) {
      FieldCountError(n, kFields, "8 (pid action operation offset size timestamp pre_wait_time sync)", error);
      return LineResult::kError;
    }
    uint64_t pid;
    if (!ParseU64(f[0], "pid", &pid, error)) return LineResult::kError;
    if (f[1] != "D" && f[1] != "C") {
      *error = fmt::format("action: '{}' is not D or C", Excerpt(f[1], 40));
      return LineResult::kError;
    }
    const std::string_view op = f[2];
    if (op == "read") {
      rec->op = BlockTraceRecord::Op::kRead;
    } else if (op == "write") {
      rec->op = BlockTraceRecord::Op::kWrite;
    } else if (op == "discard") {
      rec->op = BlockTraceRecord::Op::kTrim;
    } else if (std::find(kControlOps.begin(), kControlOps.end(), op) != kControlOps.end()) {
      return LineResult::kIgnored;
    } else {
      *error = fmt::format("operation: unknown '{}' (expected read, write, discard or a control event)",
                           Excerpt(op, 40));
      return LineResult::kError;
    }
    WideNs pre_wait;
    if (!ParseU64(f[3], "offset", &rec->offset_bytes, error) ||
        !ParseU64(f[4], "size", &rec->length_bytes, error) ||
        (f[6] != "None" && !ParseDecimalTime(f[6], "pre_wait_time", unit_ns_, &pre_wait, error))) {
      return LineResult::kError;
    }
    if (f[5] == "None") {
      rec->valid_time = false;
    } else {
      if (!ParseDecimalTime(f[5], "timestamp", unit_ns_, time_ns, error)) return LineResult::kError;
      rec->valid_time = true;
    }
    if (f[7] == "True") {
      rec->flags |= BlockTraceRecord::kFlagSync;
    } else if (f[7] != "False") {
      *error = fmt::format("sync: '{}' is not True or False", Excerpt(f[7], 40));
      return LineResult::kError;
    }
    if (f[1] != action_) return LineResult::kIgnored;
    rec->volume = 0;
    return LineResult::kRecord;
  }

 private:
  int64_t unit_ns_;
  std::string action_;
};

}  // namespace

static void RegisterWiscSeeFormat(FormatRegistry* registry) {
  registry->Register(TraceFormat{
      .name = "wiscsee",
      .description = "WiscSee events: pid action(D|C) operation(read|write|discard) offset(B) size(B) "
                     "timestamp(s) pre_wait_time(s) sync(True|False)",
      .default_time_unit = sim::Sec(1),
      .header_first_field = "",
      .make_parser = [](const ParserOptions& o) { return std::make_unique<WiscSeeParser>(o); },
      .sniff_extra = nullptr,
  });
}

const sim::Registrar<TraceFormatModule> kRegistered{{"wiscsee", &RegisterWiscSeeFormat}};

}  // namespace host
