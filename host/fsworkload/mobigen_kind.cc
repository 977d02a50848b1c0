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
  return MakeFsWorkload<MobigenConfig, MobigenReplay>(sections, "mobigen", env);
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"mobigen", "MobiGen/Mobibench syscall trace replay", true, sim::ImplSection::Of<MobigenConfig>("mobigen", "MobiGen syscall trace replay (kind: mobigen)"), {"trace"}, &Validate, &Make}};

}  // namespace host
