#include "ftl/ftl_factory.h"

#include <glog/logging.h>

#include "sim/registry.h"

namespace ftl {

std::vector<std::string> FtlKindNames() { return sim::Registry<FtlKindInfo>::Get().Names(); }

std::vector<sim::ImplSection> FtlKindSections() {
  std::vector<sim::ImplSection> out;
  for (const FtlKindInfo* k : sim::Registry<FtlKindInfo>::Get().entries()) {
    if (k->config.schema) out.push_back(k->config);
  }
  return out;
}

sim::Result<std::unique_ptr<Ftl>> MakeFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                                          const sim::StatGroup& stats) {
  CHECK(array != nullptr);
  CHECK(queue != nullptr);
  FS_RETURN_IF_ERROR(cfg.Validate(array->geometry()));
  const FtlKindInfo* kind = sim::Registry<FtlKindInfo>::Get().Find(cfg.kind);
  std::unique_ptr<Ftl> ftl = kind->make(cfg, array, queue, stats);
  if (cfg.precondition.enabled) ftl->Precondition(cfg.precondition.spec());
  return ftl;
}

}  // namespace ftl
