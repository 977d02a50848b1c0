// DataPages: the F2FS model's use of the page cache for file data and
// dentry pages — the page-cache side of the kernel's data.c
// (f2fs_get_lock_data_page's lookup and grab, set_page_dirty /
// clear_page_dirty_for_io with inode_inc/dec_dirty_pages, the dirty
// directory list sbi->inode_list[DIR_INODE] and F2FS_DIRTY_DENTS).
//
// Contract:
// - Find(inode, index) is the cached page (marked recently used) or null;
//   New admits a page to the cache (the cache may evict clean pages to make
//   room) and puts it on the LRU; Drop takes a page out (cleaned first),
//   leaving it to the cache as a zombie while pinned or under writeback;
//   Unlink hands an evicted page over to the cache. These three are the
//   only writers of an Inode's `pages`.
// - SetDirty / ClearDirty keep the file's dirty count and dirty index, and
//   either the dentry accounting (a directory: the dirty dentry page count
//   and the set of directories with dirty dentry pages, which a checkpoint
//   writes back) or the writeback accounting of file data (vfs::Writeback:
//   dirty_ratio throttling and the flusher's list). A dirty page is off the
//   LRU; a cleaned one goes back on it unless pinned or under writeback.
// - MutBytes / MutDents give a page's content for change, copying it first
//   when shared (with the Image or a write in flight).
// - Forget(dir) drops a freed directory from the dirty directory set.
//
// State owned: the dirty dentry page count and the dirty directory set.
// Not owned: the pages themselves (each Inode's `pages`, guarded by its
// i_rwsem as F2fs documents), the vfs::PageCache and vfs::Writeback (the
// F2fs's, shared with the node pages). No lock of its own: bookkeeping runs
// between suspension points.
//
// Who calls it: the F2fs's data path (reads, writes, writeback, truncate,
// direct I/O), the namespace's dentry pages (through the F2fs), the
// checkpoint's dentry writeback, space checks (NeedSsr, free sections),
// freeing an inode. It calls the page cache, the writeback accounting and
// the NodeManager (whether an inode is a directory).
#pragma once

#include <cstdint>
#include <set>

#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/node_cache.h"
#include "fs/f2fs/node_manager.h"
#include "fs/f2fs/on_disk.h"
#include "fs/vfs/page_cache.h"

namespace fs::f2fs {

class DataPages {
 public:
  DataPages(vfs::PageCache* cache, vfs::Writeback* wb, const NodeManager* nodes)
      : cache_(cache), wb_(wb), nodes_(nodes) {}
  DataPages(const DataPages&) = delete;
  DataPages& operator=(const DataPages&) = delete;

  DataPage* Find(Inode* inode, uint64_t index);
  DataPage* New(Inode* inode, uint64_t index);
  void Drop(Inode* inode, uint64_t index);
  // Takes a clean page the page cache evicts out of its file.
  std::unique_ptr<DataPage> Unlink(Inode* inode, DataPage* p);
  void SetDirty(Inode* inode, DataPage* p);
  void ClearDirty(Inode* inode, DataPage* p);
  static DataBlock& MutBytes(DataPage* p);
  static DentryBlock& MutDents(DataPage* p);

  uint64_t dirty_dentry_pages() const { return dirty_dentry_pages_; }
  const std::set<uint32_t>& dirty_dirs() const { return dirty_dirs_; }
  void Forget(Nid dir) { dirty_dirs_.erase(dir.v); }

 private:
  vfs::PageCache* cache_;
  vfs::Writeback* wb_;
  const NodeManager* nodes_;
  uint64_t dirty_dentry_pages_ = 0;
  std::set<uint32_t> dirty_dirs_;  // directories with dirty dentry pages
};

}  // namespace fs::f2fs
