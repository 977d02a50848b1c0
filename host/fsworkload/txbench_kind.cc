// workload.kind: txbench — exF2FS's transaction microbenchmarks
#include <fmt/format.h>

#include "host/fsworkload/fs_workload_kind.h"
#include "host/fsworkload/txbench.h"
#include "sim/registry.h"

namespace host {
namespace {

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t, uint32_t) {
  return sections.Get<TxbenchConfig>("txbench").Validate("workload.txbench");
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  FsWorkloadEnv e{env.events, env.fs, env.stats, env.seed, nullptr, env.cpu};
  FS_ASSIGN_OR_RETURN(std::unique_ptr<TxbenchWorkload> w,
                      TxbenchWorkload::Create(sections.Get<TxbenchConfig>("txbench"), e, "workload.txbench"));
  TxbenchWorkload* raw = w.get();
  const std::string mode = sections.Get<TxbenchConfig>("txbench").mode;
  return std::unique_ptr<WorkloadDriver>(std::make_unique<FsWorkloadDriver>(std::move(w), [raw, mode] {
    const sim::Histogram& h = raw->txn_latency();
    return fmt::format("txbench    {} transactions ({}): mean {:.1f} us, p99 {:.1f} us\n", raw->txns(), mode,
                       h.count() ? h.mean() / 1e3 : 0.0, h.count() ? static_cast<double>(h.Percentile(0.99)) / 1e3 : 0.0);
  }, env.stats.prefix()));
}

const char* TransactionsKey(const sim::ImplConfigs& sections) {
  return sections.Get<TxbenchConfig>("txbench").mode == "fsync" ? nullptr : "workload.txbench.mode";
}

std::vector<std::string> Directories(const sim::ImplConfigs& sections) {
  return {sections.Get<TxbenchConfig>("txbench").dir};
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"txbench", "exF2FS's transaction microbenchmarks (throughput_volume, multi_aw)", true,
     sim::ImplSection::Of<TxbenchConfig>("txbench", "Transaction microbenchmarks (kind: txbench)"), {}, &Validate,
     &Make, nullptr, nullptr, &TransactionsKey, &Directories, "dir"}};

}  // namespace host
