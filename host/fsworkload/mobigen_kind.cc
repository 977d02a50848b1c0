// workload.kind: mobigen — MobiGen/Mobibench syscall trace replay
#include "host/fsworkload/fs_workload_kind.h"
#include "host/fsworkload/mobigen_replay.h"
#include "sim/registry.h"

namespace host {
namespace {

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t, uint32_t) {
  return sim::Status::Ok();  // the trace is read when the replay is built
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  return MakeFsWorkload<MobigenConfig, MobigenReplay>(sections, "mobigen", env);
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"mobigen", "MobiGen/Mobibench syscall trace replay", true, sim::ImplSection::Of<MobigenConfig>("mobigen", "MobiGen syscall trace replay (kind: mobigen)"), {"trace"}, &Validate, &Make}};

}  // namespace host
