// Registration of FsWorkload kinds (filebench, fio_files, postmark,
// mobigen, txbench, aging): the driver adapter, their summary lines and the factory that
// builds a kind from its section. Each kind registers from its own *_kind.cc.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "host/fsworkload/fs_workload.h"
#include "host/workload_kind.h"

namespace host {

// Summary lines of any FsWorkload: operations, bytes, fsyncs and the
// latency of each file-system call ("workload.fs.<call>.lat").
std::string FsWorkloadSummary(const sim::StatsRegistry& st);

class FsWorkloadDriver final : public WorkloadDriver {
 public:
  // `report`, if given, adds the workload's own lines to the summary.
  explicit FsWorkloadDriver(std::unique_ptr<FsWorkload> w, std::function<std::string()> report = nullptr)
      : w_(std::move(w)), report_(std::move(report)) {}
  void Start() override { w_->Start(); }
  uint64_t completed() const override { return w_->ops().total(); }
  uint64_t planned() const override { return 0; }
  sim::Status status() const override { return w_->run_status(); }
  bool finished() const override { return w_->done(); }
  std::string Summary(const sim::StatsRegistry& st) const override {
    return FsWorkloadSummary(st) + (report_ ? report_() : std::string());
  }
  FsWorkload& workload() { return *w_; }

 private:
  std::unique_ptr<FsWorkload> w_;
  std::function<std::string()> report_;
};

// Builds W (with static Create(const C&, FsWorkloadEnv, path)) from its
// section `name`; errors name keys below "workload.<name>".
template <class C, class W>
sim::Result<std::unique_ptr<WorkloadDriver>> MakeFsWorkload(const sim::ImplConfigs& sections, std::string_view name,
                                                            const WorkloadEnv& env) {
  FsWorkloadEnv e{env.events, env.fs, env.stats, env.seed, env.device, env.cpu};
  FS_ASSIGN_OR_RETURN(std::unique_ptr<W> w,
                      W::Create(sections.Get<C>(name), e, "workload." + std::string(name)));
  return std::unique_ptr<WorkloadDriver>(std::make_unique<FsWorkloadDriver>(std::move(w)));
}

}  // namespace host
