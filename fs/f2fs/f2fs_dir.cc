// The inodes' lifecycle past their names (the NamespaceManager's,
// namespace_manager.h): eviction of idle inodes, freeing an unlinked inode
// (its pages, blocks and nodes) and releasing the last reference.
#include <algorithm>

#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {


// ---- Inode objects.

F2fs::Inode* F2fs::FindInode(Nid ino) { return itab_.Find(ino); }

void F2fs::MaybeEvictInode(Inode* in) {
  // Side-effect-free tests, the in-memory inode's own fields first: the
  // checkpoint asks this of every idle inode, and most keep cached pages,
  // so the inode page (two loads away) is read only for the few left.
  if (in->ino == kRootIno || in->refs > 0 || in->unlinked || in->freed) return;
  if (!in->pages.empty() || in->dirty_nodes.count > 0 || in->time_dirty || !in->lock.idle() || in->wb_writes > 0)
    return;
  if (in->ipage->dirty || in->ipage->writeback > 0 || I(in).lost_pino) return;
  NodePage* ip = in->ipage;
  itab_.Evict(in);
  cache_.Unpin(ip);
}

sim::Task<void> F2fs::FreeInode(Inode* inode) {
  CHECK(inode->unlinked && !inode->freed);
  InodeRef ref(&itab_, inode);
  // Data pages first (no writeback needed: the blocks are freed).
  for (uint64_t idx : inode->pages.Indices()) DropDataPage(inode, idx);
  if (!I(inode).inline_data && !I(inode).inline_dentry) co_await TruncateBlocks(inode, 0);
  // The inode block itself.
  NodePage* ip = inode->ipage;
  const uint64_t dblocks = I(inode).data_blocks;
  CHECK_EQ(dblocks, 0u) << "inode " << inode->ino.v << " still owns data blocks";
  // Remaining dirty nodes of this inode are the inode page only.
  inode->freed = true;
  itab_.RemoveOrphan(inode->ino);
  dp_->Forget(inode->ino);
  --valid_inode_count_;
  ip->pin = ip->pin - 1;  // the Inode's pin; RemoveNodePage decides about zombies
  FreeNode(ip);
  inode->ipage = nullptr;
  itab_.Retire(inode);
  stats_.orphans_freed.Inc();
}

sim::Task<void> F2fs::ReleaseInode(Inode* inode) {
  InodeRef ref(&itab_, inode);
  if (!inode->unlinked || inode->freed || inode->refs != 1) co_return;
  vfs::SharedLock cp = co_await LockOp();
  if (inode->unlinked && !inode->freed && inode->refs == 1) co_await FreeInode(inode);
}

}  // namespace fs::f2fs
