// workload.kind: ycsb — YCSB's CoreWorkload on Debian's SQLite through the
// VFS on the simulated file system.
#include "host/sqlite/ycsb.h"
#include "host/workload_kind.h"
#include "sim/registry.h"

namespace host::sqlite {
namespace {

constexpr const char* kPath = "workload.ycsb";

class YcsbDriver final : public WorkloadDriver {
 public:
  explicit YcsbDriver(std::unique_ptr<YcsbSqlite> w) : w_(std::move(w)) {}
  void Start() override { w_->Start(on_done_); }
  void SetDoneCallback(std::function<void()> fn) override { on_done_ = std::move(fn); }
  uint64_t completed() const override { return w_->completed(); }
  uint64_t planned() const override { return w_->planned(); }
  sim::Status status() const override { return w_->status(); }
  bool finished() const override { return w_->done(); }
  std::string Summary(const sim::StatsRegistry&) const override { return w_->done() ? w_->Summary() : ""; }

 private:
  std::unique_ptr<YcsbSqlite> w_;
  std::function<void()> on_done_;
};

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t, uint32_t) {
  return sections.Get<YcsbConfig>("ycsb").Resolve(kPath).status();
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  YcsbSqlite::Env e{env.events, env.fs, env.stats, env.seed, env.cpu};
  FS_ASSIGN_OR_RETURN(auto w, YcsbSqlite::Create(sections.Get<YcsbConfig>("ycsb"), e, kPath));
  return std::unique_ptr<WorkloadDriver>(std::make_unique<YcsbDriver>(std::move(w)));
}

const char* TransactionsKey(const sim::ImplConfigs& sections) {
  return sections.Get<YcsbConfig>("ycsb").vfs.fs_transactions ? "workload.ycsb.vfs.fs_transactions" : nullptr;
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"ycsb", "YCSB core workloads on real SQLite through the VFS", true,
     sim::ImplSection::Of<YcsbConfig>("ycsb", "YCSB CoreWorkload on real SQLite (kind: ycsb)"), {"properties"},
     &Validate, &Make, nullptr, nullptr, &TransactionsKey}};

}  // namespace host::sqlite
