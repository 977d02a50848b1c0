// workload.kind: aging — file-system aging by git history (Conway et al. FAST'17)
#include "host/fsworkload/aging_workload.h"
#include "host/fsworkload/fs_workload_kind.h"
#include "sim/registry.h"

namespace host {
namespace {

// The trace is read and checked here too, so `check` reports a missing or
// malformed trace (and pulls / clean_at beyond it) as `run` would.
sim::Status Validate(const sim::ImplConfigs& sections, uint64_t, uint32_t) {
  return AgingWorkload::Load(sections.Get<AgingConfig>("aging"), "workload.aging").status();
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  FsWorkloadEnv e{env.events, env.fs, env.stats, env.seed, env.device, env.cpu};
  FS_ASSIGN_OR_RETURN(std::unique_ptr<AgingWorkload> w,
                      AgingWorkload::Create(sections.Get<AgingConfig>("aging"), e, "workload.aging"));
  const AgingWorkload* raw = w.get();  // owned by the driver
  return std::unique_ptr<WorkloadDriver>(
      std::make_unique<FsWorkloadDriver>(std::move(w), [raw] { return raw->Report(); }));
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"aging", "File-system aging by git history (Conway et al. FAST'17): git-pull replay and grep tests", true,
     sim::ImplSection::Of<AgingConfig>("aging", "Git-history aging (kind: aging)"), {"trace"}, &Validate, &Make}};

}  // namespace host
