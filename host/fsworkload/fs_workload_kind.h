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
// latency of each file-system call ("<prefix>.fs.<call>.lat"). `prefix` is
// the workload's stats group ("workload", or a flow's "flows.<name>"),
// `label` the first line's first word.
std::string FsWorkloadSummary(const sim::StatsRegistry& st, std::string_view prefix = "workload",
                              std::string_view label = "workload");

class FsWorkloadDriver final : public WorkloadDriver {
 public:
  // `report`, if given, adds the workload's own lines to the summary.
  // `prefix`: the workload's stats group (WorkloadEnv::stats).
  explicit FsWorkloadDriver(std::unique_ptr<FsWorkload> w, std::function<std::string()> report = nullptr,
                            std::string prefix = "workload")
      : w_(std::move(w)), report_(std::move(report)), prefix_(std::move(prefix)) {}
  void Start() override { w_->Start(); }
  void SetDoneCallback(std::function<void()> fn) override { w_->SetDoneCallback(std::move(fn)); }
  uint64_t completed() const override { return w_->ops().total(); }
  uint64_t planned() const override { return 0; }
  sim::Status status() const override { return w_->run_status(); }
  bool finished() const override { return w_->done(); }
  std::string Summary(const sim::StatsRegistry& st) const override {
    const std::string label =
        prefix_.rfind("flows.", 0) == 0 ? "flow " + prefix_.substr(6) : std::string("workload");
    return FsWorkloadSummary(st, prefix_, label) + (report_ ? report_() : std::string());
  }
  FsWorkload& workload() { return *w_; }

 private:
  std::unique_ptr<FsWorkload> w_;
  std::function<std::string()> report_;
  std::string prefix_;
};

// Builds W (with static Create(const C&, FsWorkloadEnv, path)) from its
// section `name`; errors name keys below "workload.<name>".
template <class C, class W>
sim::Result<std::unique_ptr<WorkloadDriver>> MakeFsWorkload(const sim::ImplConfigs& sections, std::string_view name,
                                                            const WorkloadEnv& env) {
  FsWorkloadEnv e{env.events, env.fs, env.stats, env.seed, env.device, env.cpu};
  FS_ASSIGN_OR_RETURN(std::unique_ptr<W> w,
                      W::Create(sections.Get<C>(name), e, "workload." + std::string(name)));
  return std::unique_ptr<WorkloadDriver>(std::make_unique<FsWorkloadDriver>(std::move(w), nullptr, env.stats.prefix()));
}

}  // namespace host
