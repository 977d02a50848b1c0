// Space accounting (total_valid_block_count, alloc_valid_block_count) and
// the free-section checks (has_not_enough_free_secs); the node pages are
// the NodeManager's (node_manager.h).
#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {

bool F2fs::IncValidBlocks(uint64_t n) {
  if (valid_block_count_ + n > layout_.user_block_count) return false;
  valid_block_count_ += n;
  alloc_since_cp_ += n;
  return true;
}

void F2fs::DecValidBlocks(uint64_t n) {
  CHECK_GE(valid_block_count_, n);
  valid_block_count_ -= n;
}

namespace {
uint32_t SecsFor(uint64_t pages, uint32_t blocks_per_sec) {
  return static_cast<uint32_t>((pages + blocks_per_sec - 1) / blocks_per_sec);
}
}  // namespace

bool F2fs::HasNotEnoughFreeSecs(uint32_t freed, uint32_t needed) const {
  return sm_->free_sections() + freed <= NeededFreeSecs() + needed;
}

uint32_t F2fs::NeededFreeSecs() const {
  const uint32_t bps = layout_.blocks_per_sec();
  const uint32_t node_secs = SecsFor(nm_->cache().dirty().size(), bps);
  const uint32_t dent_secs = SecsFor(dp_->dirty_dentry_pages(), bps);
  return node_secs + 2 * dent_secs + layout_.reserved_sections();
}

}  // namespace fs::f2fs
