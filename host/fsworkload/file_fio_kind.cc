// workload.kind: fio_files — fio-like I/O on files with fsync every N writes
#include "host/fsworkload/fs_workload_kind.h"
#include "host/fsworkload/file_fio.h"
#include "sim/registry.h"

namespace host {
namespace {

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t, uint32_t) {
  return sections.Get<FileFioConfig>("fio_files").Validate("workload.fio_files");
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  return MakeFsWorkload<FileFioConfig, FileFioWorkload>(sections, "fio_files", env);
}

std::vector<std::string> Directories(const sim::ImplConfigs& sections) {
  return {sections.Get<FileFioConfig>("fio_files").directory};
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"fio_files", "fio-like I/O on files with fsync every N writes", true, sim::ImplSection::Of<FileFioConfig>("fio_files", "fio-like workload on files (kind: fio_files)"), {}, &Validate, &Make, nullptr, nullptr, nullptr, &Directories, "directory"}};

}  // namespace host
