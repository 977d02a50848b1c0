// workload.kind: postmark — PostMark v1.51
#include "host/fsworkload/fs_workload_kind.h"
#include "host/fsworkload/postmark.h"
#include "sim/registry.h"

namespace host {
namespace {

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t, uint32_t) {
  return sections.Get<PostmarkConfig>("postmark").Validate("workload.postmark");
}

sim::Result<std::unique_ptr<WorkloadDriver>> Make(const sim::ImplConfigs& sections, const WorkloadEnv& env) {
  return MakeFsWorkload<PostmarkConfig, PostmarkWorkload>(sections, "postmark", env);
}

std::vector<std::string> Directories(const sim::ImplConfigs& sections) {
  return {sections.Get<PostmarkConfig>("postmark").location};
}

}  // namespace

const sim::Registrar<WorkloadKind> kRegistered{
    {"postmark", "PostMark v1.51", true, sim::ImplSection::Of<PostmarkConfig>("postmark", "PostMark (kind: postmark)"), {}, &Validate, &Make, nullptr, nullptr, nullptr, &Directories, "location"}};

}  // namespace host
