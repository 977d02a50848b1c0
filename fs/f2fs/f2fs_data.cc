// The page cache's owner: eviction (PageCache::Owner), drop_caches, writer
// throttling and the flusher (vfs::WritebackHost). Reads, writes and a
// page's write are the DataPath's (data_path.h); pages and their dirty
// accounting DataPages' (data_pages.h).
#include <algorithm>
#include <cstring>

#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {

// ---- Page cache.

std::unique_ptr<vfs::CachedPage> F2fs::Evict(vfs::CachedPage* cp) {
  Page* p = static_cast<Page*>(cp);
  stats_.evicted_pages.Inc();
  if (p->kind == Page::Kind::kNode) return UnlinkNodePage(static_cast<NodePage*>(p));
  DataPage* dp = static_cast<DataPage*>(p);
  Inode* inode = FindInode(dp->ino);
  CHECK(inode != nullptr) << "cached page of unknown inode " << dp->ino.v;
  return dp_->Unlink(inode, dp);
}

FsStatus F2fs::DropCaches() {
  nat_->DropClean();  // clean NAT entries (the shrinker) and NAT pages
  cache_.EvictAll();
  std::vector<Inode*> idle;
  for (auto& [ino, in] : itab_.all()) idle.push_back(in.get());
  for (Inode* in : idle) MaybeEvictInode(in);
  // Inode pages unpinned by the inode eviction above are now evictable too.
  cache_.EvictAll();
  return FsStatus{true, Errno::kOk};
}

// ---- Writeback (the flusher; a page's write is the DataPath's).

sim::Task<void> F2fs::BalanceDirtyPages() {
  if (!wb_.OverDirtyLimit()) co_return;
  stats_.throttled_writes.Inc();
  co_await wb_.Throttle([this] { return dead_ || stopping_; });
}

sim::Task<void> F2fs::FlusherThread() {
  ++threads_running_;
  co_await wb_.Run(this);
  --threads_running_;
  threads_wq_.NotifyAll();
}

vfs::WritebackState* F2fs::FindWritebackState(uint64_t ino, uint64_t* dirty_pages) {
  Inode* in = FindInode(Nid{static_cast<uint32_t>(ino)});
  if (!in) return nullptr;
  *dirty_pages = in->dirty_pages;
  return &in->wb;
}

sim::Task<bool> F2fs::WritebackFile(uint64_t ino, uint64_t max_pages) {
  Inode* in = FindInode(Nid{static_cast<uint32_t>(ino)});
  CHECK(in != nullptr);
  InodeRef ref(&itab_, in);
  co_await dpath_->WritebackInode(in, max_pages, /*wait=*/false, /*from_cp=*/false);
  co_return in->dirty_pages > 0 && in->wb.on_list;
}

}  // namespace fs::f2fs
