// workload.kind: mobigen — MobiGen/Mobibench syscall trace replay
#include "host/fsworkload/fs_workload_kind.h"
#include "host/fsworkload/mobigen_replay.h"
#include "sim/registry.h"

namespace host {
namespace {

// The trace is read and parsed here too, so `check` reports a missing or
// malformed trace as `run` would.
sim::Status Validate(const sim::ImplConfigs& sections, uint64_t, uint32_t) {
  return MobigenReplay::Load(sections.Get<MobigenConfig>("mobigen"), "workload.mobigen").status();
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  FsWorkloadEnv e{env.events, env.fs, env.stats, env.seed, nullptr, env.cpu};
  FS_ASSIGN_OR_RETURN(std::unique_ptr<MobigenReplay> w,
                      MobigenReplay::Create(sections.Get<MobigenConfig>("mobigen"), e, "workload.mobigen"));
  const MobigenReplay* replay = w.get();  // owned by the driver
  return std::unique_ptr<WorkloadDriver>(
      std::make_unique<FsWorkloadDriver>(std::move(w), [replay] { return replay->Report(); }));
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"mobigen", "MobiGen/Mobibench syscall trace replay", true, sim::ImplSection::Of<MobigenConfig>("mobigen", "MobiGen syscall trace replay (kind: mobigen)"), {"trace"}, &Validate, &Make}};

}  // namespace host
