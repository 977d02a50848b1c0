// workload.kind: filebench — filebench personalities on a file system
#include "host/fsworkload/fs_workload_kind.h"
#include "host/fsworkload/filebench_workload.h"
#include "host/fsworkload/fileset.h"
#include "sim/registry.h"

namespace host {
namespace {

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t, uint32_t) {
  return FilebenchWorkload::BuildScript(sections.Get<FilebenchConfig>("filebench"), "workload.filebench").status();
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  return MakeFsWorkload<FilebenchConfig, FilebenchWorkload>(sections, "filebench", env);
}

uint64_t MemoryBytes(const sim::ImplConfigs& sections) {
  auto script = FilebenchWorkload::BuildScript(sections.Get<FilebenchConfig>("filebench"), "workload.filebench");
  if (!script.ok()) return 0;
  uint64_t bytes = 0;
  for (const FilesetDef& f : script->filesets) bytes += Fileset::MemoryBytes(f);
  return bytes;
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"filebench", "filebench personalities on a file system", true, sim::ImplSection::Of<FilebenchConfig>("filebench", "filebench personality (kind: filebench)"), {}, &Validate, &Make, &MemoryBytes}};

}  // namespace host
