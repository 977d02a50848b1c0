// Builds a file-system workload by kind name, for the experiment assembly:
//   workload:
//     kind: filebench | fio_files | postmark | mobigen
//     filebench: {...}   fio_files: {...}   postmark: {...}   mobigen: {...}
// An unknown kind is an error listing the choices.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/fsworkload/file_fio.h"
#include "host/fsworkload/filebench_workload.h"
#include "host/fsworkload/fs_workload.h"
#include "host/fsworkload/mobigen_replay.h"
#include "host/fsworkload/postmark.h"
#include "sim/status.h"

namespace host {

// The per-kind sections; only the one named by the kind is used.
struct FsWorkloadSections {
  FilebenchConfig filebench;
  FileFioConfig fio_files;
  PostmarkConfig postmark;
  MobigenConfig mobigen;
};

// "filebench", "fio_files", "mobigen", "postmark".
std::vector<std::string> FsWorkloadKinds();

// Builds the workload of `kind` from its section; errors name keys below
// `path` ("workload.filebench.nthreads: ..."), e.g. path = "workload".
sim::Result<std::unique_ptr<FsWorkload>> CreateFsWorkload(std::string_view kind, const FsWorkloadSections& sections,
                                                          FsWorkloadEnv env, std::string_view path = "");

}  // namespace host
