// workload.kind: mobibench — Mobibench's SQLite workloads on Debian's SQLite
// through the VFS on the simulated file system.
#include <fmt/format.h>

#include "host/sqlite/mobibench.h"
#include "host/workload_kind.h"
#include "sim/registry.h"

namespace host::sqlite {
namespace {

class MobibenchDriver final : public WorkloadDriver {
 public:
  explicit MobibenchDriver(std::unique_ptr<MobibenchSqlite> w) : w_(std::move(w)) {}
  void Start() override { w_->Start(on_done_); }
  void SetDoneCallback(std::function<void()> fn) override { on_done_ = std::move(fn); }
  uint64_t completed() const override { return w_->txns(); }
  uint64_t planned() const override { return 0; }
  sim::Status status() const override { return w_->status(); }
  bool finished() const override { return w_->done(); }
  std::string Summary(const sim::StatsRegistry&) const override {
    if (!w_->done()) return "";
    std::string out =
        fmt::format("sqlite     {} transactions: {:.1f} txn/s, {:.2f} fsyncs/txn, {:.0f} bytes written/txn\n",
                    w_->txns(), w_->TxnPerSec(), w_->FsyncsPerTxn(), w_->BytesWrittenPerTxn());
    if (w_->config().vfs.fs_transactions) {
      // Whole run (setup included), as the VFS counts them.
      out += fmt::format("  file-system transactions: {} committed, {} aborted (vfs.fs_transactions)\n",
                         w_->vfs().tx_commits(), w_->vfs().tx_aborts());
    }
    return out;
  }

 private:
  std::unique_ptr<MobibenchSqlite> w_;
  std::function<void()> on_done_;
};

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t, uint32_t) {
  return sections.Get<MobibenchConfig>("mobibench").Validate("workload.mobibench");
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  MobibenchSqlite::Env e{env.events, env.fs, env.stats, env.seed, env.cpu};
  FS_ASSIGN_OR_RETURN(auto m, MobibenchSqlite::Create(sections.Get<MobibenchConfig>("mobibench"), e,
                                                      "workload.mobibench"));
  return std::unique_ptr<WorkloadDriver>(std::make_unique<MobibenchDriver>(std::move(m)));
}

const char* TransactionsKey(const sim::ImplConfigs& sections) {
  return sections.Get<MobibenchConfig>("mobibench").vfs.fs_transactions ? "workload.mobibench.vfs.fs_transactions"
                                                                        : nullptr;
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"mobibench", "Mobibench SQLite on real SQLite through the VFS", true,
     sim::ImplSection::Of<MobibenchConfig>("mobibench", "Mobibench SQLite on real SQLite (kind: mobibench)"), {},
     &Validate, &Make, nullptr, nullptr, &TransactionsKey}};

}  // namespace host::sqlite
