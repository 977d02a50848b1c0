#include "host/fsworkload/fs_workload_factory.h"

#include <fmt/format.h>

namespace host {

namespace {

std::string Sub(std::string_view path, std::string_view section) {
  return path.empty() ? std::string(section) : fmt::format("{}.{}", path, section);
}

template <class W, class C>
sim::Result<std::unique_ptr<FsWorkload>> Build(const C& cfg, FsWorkloadEnv env, const std::string& path) {
  FS_ASSIGN_OR_RETURN(std::unique_ptr<W> w, W::Create(cfg, std::move(env), path));
  return std::unique_ptr<FsWorkload>(std::move(w));
}

}  // namespace

std::vector<std::string> FsWorkloadKinds() { return {"filebench", "fio_files", "mobigen", "postmark"}; }

sim::Result<std::unique_ptr<FsWorkload>> CreateFsWorkload(std::string_view kind, const FsWorkloadSections& s,
                                                          FsWorkloadEnv env, std::string_view path) {
  if (kind == "filebench") return Build<FilebenchWorkload>(s.filebench, std::move(env), Sub(path, "filebench"));
  if (kind == "fio_files") return Build<FileFioWorkload>(s.fio_files, std::move(env), Sub(path, "fio_files"));
  if (kind == "postmark") return Build<PostmarkWorkload>(s.postmark, std::move(env), Sub(path, "postmark"));
  if (kind == "mobigen") return Build<MobigenReplay>(s.mobigen, std::move(env), Sub(path, "mobigen"));
  std::string kinds;
  for (const std::string& k : FsWorkloadKinds()) kinds += (kinds.empty() ? "" : ", ") + k;
  return sim::Status::InvalidInput(
      fmt::format("{}: unknown file-system workload '{}' (choices: {})", Sub(path, "kind"), kind, kinds));
}

}  // namespace host
