// workload.kind: trace — block trace replay on the device.
#include "host/replay/trace_replay_config.h"
#include "host/replay/trace_replayer.h"
#include "host/trace/block_trace_reader.h"
#include "host/workload_kind.h"
#include "sim/registry.h"

namespace host {
namespace {

class TraceDriver final : public WorkloadDriver {
 public:
  explicit TraceDriver(std::unique_ptr<TraceReplayer> r) : r_(std::move(r)) {}
  void Start() override { r_->Start(); }
  uint64_t completed() const override { return r_->completed(); }
  uint64_t planned() const override { return 0; }
  sim::Status status() const override { return r_->status(); }
  std::string Summary(const sim::StatsRegistry& st) const override { return BlockWorkloadSummary(st) + r_->Report(); }

 private:
  std::unique_ptr<TraceReplayer> r_;
};

// Beyond the keys, the trace is opened, its format detected and its first
// kCheckedRecords records read, so `check` reports a missing, unknown or
// malformed trace as `run` would.
constexpr uint64_t kCheckedRecords = 10000;

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t capacity, uint32_t sector_size) {
  const TraceReplayConfig& cfg = sections.Get<TraceReplayConfig>("trace");
  FS_RETURN_IF_ERROR(cfg.Validate(capacity, sector_size, "workload.trace"));
  sim::Result<std::unique_ptr<BlockTraceReader>> reader = OpenBlockTrace(cfg.path, cfg.reader);
  if (!reader.ok()) return sim::Status::InvalidInput("workload.trace.path: " + reader.status().message());
  BlockTraceRecord rec;
  for (uint64_t i = 0; i < kCheckedRecords; ++i) {
    sim::Result<bool> more = (*reader)->Next(&rec);
    if (!more.ok()) return sim::Status::InvalidInput("workload.trace.path: " + more.status().message());
    if (!*more) break;
  }
  return sim::Status::Ok();
}

// workload.trace.path was made absolute when the config was loaded.
sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  TraceReplayer::Env e{env.events, env.device, env.stats, env.seed, env.device_queues};
  FS_ASSIGN_OR_RETURN(auto r, TraceReplayer::Create(sections.Get<TraceReplayConfig>("trace"), e, "", "workload.trace"));
  return std::unique_ptr<WorkloadDriver>(std::make_unique<TraceDriver>(std::move(r)));
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"trace", "block trace replay on the device", false,
     sim::ImplSection::Of<TraceReplayConfig>("trace", "Block trace replay (kind: trace)"), {"path"}, &Validate,
     &Make}};

}  // namespace host
