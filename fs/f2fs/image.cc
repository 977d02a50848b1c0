#include "fs/f2fs/image.h"

#include <glog/logging.h>

namespace fs::f2fs {

void Image::Forget(BlockAddr start, uint32_t count) {
  CHECK_LE(uint64_t{start.v} + count, durable_.size()) << "forget beyond the volume";
  static const BlockPtr stale = std::make_shared<const StaleBlock>();
  for (uint64_t a = start.v; a < uint64_t{start.v} + count; ++a) {
    BlockPtr& b = durable_[a];
    if (!b || b->type == BlockData::Type::kStale) continue;
    b = stale;
    ++forgotten_;
  }
}

}  // namespace fs::f2fs
