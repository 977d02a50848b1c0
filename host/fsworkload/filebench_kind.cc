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

// Where the script's filesets live: each one's root, <path>/<name>, after $dir.
std::vector<std::string> Directories(const sim::ImplConfigs& sections) {
  auto script = FilebenchWorkload::BuildScript(sections.Get<FilebenchConfig>("filebench"), "workload.filebench");
  std::vector<std::string> out;
  if (!script.ok()) return out;
  for (const FilesetDef& f : script->filesets) {
    // A fileset's root (or a single file) is <path>/<name> (Fileset).
    std::string root = f.path;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    out.push_back(root == "/" ? "/" + f.name : root + "/" + f.name);
  }
  return out;
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"filebench", "filebench personalities on a file system", true, sim::ImplSection::Of<FilebenchConfig>("filebench", "filebench personality (kind: filebench)"), {}, &Validate, &Make, &MemoryBytes, nullptr, nullptr, &Directories, "dir"}};

}  // namespace host
