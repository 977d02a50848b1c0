// workload.kind: trace — block trace replay on the device.
#include <fmt/format.h>

#include "host/replay/address_map.h"
#include "host/replay/replay_stream.h"
#include "host/replay/trace_input.h"
#include "host/replay/trace_replay_config.h"
#include "host/replay/trace_replayer.h"
#include "host/replay/zone_replay.h"
#include "host/trace/block_trace_reader.h"
#include "host/trace/trace_info.h"
#include "host/workload_kind.h"
#include "sim/registry.h"

namespace host {
namespace {

class TraceDriver final : public WorkloadDriver {
 public:
  explicit TraceDriver(std::unique_ptr<TraceReplayer> r) : r_(std::move(r)) {}
  void Start() override { r_->Start(); }
  void SetDoneCallback(std::function<void()> fn) override { r_->SetDoneCallback(std::move(fn)); }
  uint64_t completed() const override { return r_->completed(); }
  uint64_t planned() const override { return 0; }
  sim::Status status() const override { return r_->status(); }
  bool finished() const override { return r_->done(); }
  std::string Summary(const sim::StatsRegistry& st) const override { return BlockWorkloadSummary(st) + r_->Report(); }

 private:
  std::unique_ptr<TraceReplayer> r_;
};

// Beyond the keys, the trace is opened, its format detected and its first
// `records` records read (run: 1, check: kCheckedRecords), so `check`
// reports a missing, unknown or malformed trace as `run` would. A trace
// without a single record (empty, or only blank, comment, header, ignored,
// skipped or zero-length lines) is an error: a replay of it would report a
// clean run of nothing.
constexpr uint64_t kCheckedRecords = 10000;

sim::Status CheckTrace(const TraceReplayConfig& cfg, uint64_t records) {
  sim::Result<std::unique_ptr<BlockTraceReader>> reader = OpenBlockTrace(cfg.path, cfg.reader);
  if (!reader.ok()) return sim::Status::InvalidInput("workload.trace.path: " + reader.status().message());
  BlockTraceRecord rec;
  for (uint64_t i = 0; i < records; ++i) {
    sim::Result<bool> more = (*reader)->Next(&rec);
    if (!more.ok()) return sim::Status::InvalidInput("workload.trace.path: " + more.status().message());
    if (!*more) {
      if (i > 0) break;
      const BlockTraceStats& s = (*reader)->stats();
      return sim::Status::InvalidInput(fmt::format(
          "workload.trace.path: {}: no records to replay ({} lines: {} blank, comment, header or non-request, {} "
          "malformed skipped, {} zero-length dropped)",
          cfg.path, s.lines, s.ignored, s.skipped, s.zero_length_dropped));
    }
  }
  return sim::Status::Ok();
}

// With fit: error, the first `records` requests of the replay (through the
// replay's own filters, alignment and volume layout) must fit the device,
// so `check` names the first one that does not as `run` would; later ones
// are refused when the replay reaches them.
sim::Status CheckFit(const TraceReplayConfig& cfg, uint64_t capacity, uint32_t sector_size, uint64_t records) {
  if (cfg.fit != "error") return sim::Status::Ok();
  const TraceInput input = TraceInput::File(cfg.path);
  sim::Result<std::unique_ptr<BlockTraceReader>> first = input.Open(cfg.reader);
  if (!first.ok()) return sim::Status::InvalidInput("workload.trace.path: " + first.status().message());
  sim::Result<AddressMap> map = AddressMap::Build(cfg, capacity, sector_size, input);
  if (!map.ok()) return sim::Status::InvalidInput("workload.trace.path: " + map.status().message());
  ReplayStreamCounters counters;
  TraceReplayConfig one = cfg;
  one.loops = 1;
  ReplayStream stream(one, input, std::move(first).value(), &map.value(), &counters);
  ReplayItem item;
  for (uint64_t i = 0; i < records; ++i) {
    sim::Result<bool> more = stream.Next(&item);
    if (!more.ok()) return sim::Status::InvalidInput("workload.trace.fit: " + more.status().message());
    if (!*more) break;
  }
  return sim::Status::Ok();
}

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t capacity, uint32_t sector_size) {
  const TraceReplayConfig& cfg = sections.Get<TraceReplayConfig>("trace");
  FS_RETURN_IF_ERROR(cfg.Validate(capacity, sector_size, "workload.trace"));
  FS_RETURN_IF_ERROR(CheckTrace(cfg, kCheckedRecords));
  return CheckFit(cfg, capacity, sector_size, kCheckedRecords);
}

// On a zoned device: refuse checks the whole stream (CheckZonedReplay);
// remap needs whole flash pages. On another device remap has nothing to do.
sim::Status ValidateZoned(const sim::ImplConfigs& sections, const ssd::ZoneLayout* zones, uint32_t page_size,
                          uint32_t sector_size) {
  const TraceReplayConfig& cfg = sections.Get<TraceReplayConfig>("trace");
  if (zones == nullptr) {
    if (cfg.zoned == "remap") {
      return sim::Status::InvalidInput("workload.trace.zoned: remap needs a zoned device (ftl.kind: zns)");
    }
    return sim::Status::Ok();
  }
  if (cfg.zoned == "remap") {
    if (cfg.EffectiveAlign(sector_size) % page_size != 0) {
      return sim::Status::InvalidInput(fmt::format(
          "workload.trace.align: zoned: remap takes whole {}-byte flash pages: set align to a multiple of it",
          page_size));
    }
    return sim::Status::Ok();
  }
  return CheckZonedReplay(cfg, *zones, page_size, sector_size, "workload.trace");
}

// The trace-time signs `trace-info` warns about (a misread time unit, a
// coarse clock), over the records `check` reads.
std::vector<std::string> Warnings(const sim::ImplConfigs& sections) {
  const TraceReplayConfig& cfg = sections.Get<TraceReplayConfig>("trace");
  sim::Result<std::unique_ptr<BlockTraceReader>> reader = OpenBlockTrace(cfg.path, cfg.reader);
  if (!reader.ok()) return {};
  sim::Result<TraceInfo> info = Summarize(reader->get(), kCheckedRecords);
  if (!info.ok()) return {};
  std::vector<std::string> out;
  for (const std::string& w : TraceWarnings(*info, cfg.spread_ties > sim::SimTime::Zero()))
    out.push_back(fmt::format("workload.trace.path: {} (first {} records): {}", cfg.path, kCheckedRecords, w));
  return out;
}

// workload.trace.path was made absolute when the config was loaded.
sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  FS_RETURN_IF_ERROR(CheckTrace(sections.Get<TraceReplayConfig>("trace"), 1));
  TraceReplayer::Env e{env.events, env.device, env.stats, env.seed, env.device_queues, env.first_queue};
  FS_ASSIGN_OR_RETURN(auto r, TraceReplayer::Create(sections.Get<TraceReplayConfig>("trace"), e, "", "workload.trace"));
  return std::unique_ptr<WorkloadDriver>(std::make_unique<TraceDriver>(std::move(r)));
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"trace", "block trace replay on the device", false,
     sim::ImplSection::Of<TraceReplayConfig>("trace", "Block trace replay (kind: trace)"), {"path"}, &Validate,
     &Make, nullptr, &Warnings, nullptr, nullptr, nullptr, &ValidateZoned}};

}  // namespace host
