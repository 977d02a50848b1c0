// workload.kind: fio — the fio-like block workload on the device.
#include "host/workload/fio_config.h"
#include "host/workload/fio_generator.h"
#include "host/workload_kind.h"
#include "sim/registry.h"

namespace host {
namespace {

class FioDriver final : public WorkloadDriver {
 public:
  explicit FioDriver(std::unique_ptr<FioGenerator> g) : g_(std::move(g)) {}
  void Start() override { g_->Start(); }
  void SetDoneCallback(std::function<void()> fn) override { g_->SetDoneCallback(std::move(fn)); }
  uint64_t completed() const override { return g_->completed(); }
  uint64_t planned() const override { return g_->plan().total_ios; }
  bool finished() const override { return g_->done(); }
  std::string Summary(const sim::StatsRegistry& st) const override { return BlockWorkloadSummary(st); }

 private:
  std::unique_ptr<FioGenerator> g_;
};

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t capacity, uint32_t sector_size) {
  return sections.Get<FioConfig>("fio").Validate(capacity, sector_size, "workload.fio");
}

sim::Status ValidateZoned(const sim::ImplConfigs& sections, const ssd::ZoneLayout* zones, uint32_t page_size,
                          uint32_t sector_size) {
  const FioConfig& cfg = sections.Get<FioConfig>("fio");
  if (zones == nullptr) {
    if (cfg.zonemode == "zbd") {
      return sim::Status::InvalidInput("workload.fio.zonemode: zbd needs a zoned device (ftl.kind: zns)");
    }
    return sim::Status::Ok();
  }
  const uint64_t capacity = (zones->conventional_pages + zones->zones * zones->zone_pages) * page_size;
  FS_ASSIGN_OR_RETURN(const FioPlan plan, ResolveFio(cfg, capacity, sector_size, "workload.fio"));
  return CheckZbd(plan, *zones, page_size, "workload.fio");
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  FioGenerator::Env e{env.events, env.device, env.stats, env.seed, env.device_queues, env.first_queue};
  FS_ASSIGN_OR_RETURN(auto g, FioGenerator::Create(sections.Get<FioConfig>("fio"), e, "workload.fio"));
  return std::unique_ptr<WorkloadDriver>(std::make_unique<FioDriver>(std::move(g)));
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"fio", "fio-like block workload on the device", false,
     sim::ImplSection::Of<FioConfig>("fio", "fio-like block workload (kind: fio)"), {"jobfile"}, &Validate,
     &Make, nullptr, nullptr, nullptr, nullptr, nullptr, &ValidateZoned}};

}  // namespace host
