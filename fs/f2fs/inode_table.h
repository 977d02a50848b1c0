// InodeTable: the F2FS model's in-memory inodes — the kernel's inode cache
// for the file system (iget_locked / evict) with the orphan inode list
// (sbi->im[ORPHAN_INO]) and the lists a checkpoint clears.
//
// Contract:
// - Find(ino) is the inode in memory or null; Insert takes ownership of a
//   new one (its ino not in memory); Evict deletes an idle one.
// - An inode freed while referenced (unlink of an open file, then its last
//   link gone) moves out of the table with Retire and lives on until
//   DropRetired at its last reference; Find no longer sees it.
// - Orphans: the inode numbers with no link left and not yet freed
//   (AddOrphan at the last unlink, RemoveOrphan when freed); a checkpoint
//   persists them and mount frees them.
// - MarkTimeDirty / MarkTransDir set an inode's flag and remember it, so a
//   checkpoint visits only those (SyncTimeDirty, ClearTransDir) instead of
//   every inode in memory. Each list is a superset of the inodes that still
//   have the flag.
// - all() iterates in the container's order, which results depend on
//   (eviction order sets the node cache's LRU): it is an unordered_map
//   keyed by inode number, as before this class existed.
// - An InodeRef holds a reference on an inode for an operation; the last
//   reference of a freed inode deletes it (DropRetired). After KillLocks
//   references are no longer counted down.
// - KillLocks() (power cut): every inode's i_rwsem, of the table and of the
//   retired ones, is killed.
//
// State owned: the inodes (table and retired), the orphan set, the
// time_dirty and trans_dir lists. No lock of its own: the table changes in
// synchronous sections of the F2fs's operations (between suspension
// points); an inode's fields are guarded by its i_rwsem (`lock`) as the
// F2fs documents.
//
// Who calls it: the F2fs's namespace, data, checkpoint, fsck, mount and
// transaction code. It calls nobody.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <glog/logging.h>

#include "fs/f2fs/node_cache.h"
#include "fs/f2fs/on_disk.h"
#include "fs/vfs/page_cache.h"
#include "fs/vfs/page_index_set.h"
#include "fs/vfs/page_slots.h"
#include "fs/vfs/sync_primitives.h"
#include "sim/event_queue.h"

namespace fs::f2fs {

// A member file's part of a transaction (tx_manager.h): while the set's
// transaction runs, the file's writes are held here (the inmem pages),
// not in the page cache, so nothing of them reaches the device before
// the commit.
struct TxFile {
  uint64_t key = 0;      // the set
  bool running = false;  // the set's transaction is running
  // Page index -> content written by the transaction (null: zeros).
  std::map<uint64_t, std::shared_ptr<DataBlock>> pages;
  uint64_t size = 0;  // the file's size as the transaction left it
  // The smallest size a truncate of the transaction left: past it, a page
  // the transaction did not write reads as zeros.
  uint64_t cut = UINT64_MAX;
  // Pages written early under memory pressure (stolen): page index ->
  // the block holding the content, valid, owned by (ino, kStolenOfs) in
  // the SSA, in no dnode until the commit takes it. A page is in `pages`
  // or here, not both.
  std::map<uint64_t, BlockAddr> stolen;
};

// An in-memory inode (f2fs_inode_info). Its fields are the F2fs's to
// change (guarded by `lock`, i_rwsem, as f2fs.h says); the InodeTable owns
// the object.
struct Inode {
  Inode(sim::EventQueue* q, vfs::LockClass* i_rwsem) : lock(q, i_rwsem) {}
  Nid ino;
  NodePage* ipage = nullptr;  // pinned while the Inode exists
  // The inode block's is_dir (a file's type never changes), kept here as
  // the kernel keeps i_mode in the in-memory inode: the type checks of
  // every path lookup read it without going through ipage to the block.
  // InodeTable::Insert sets it.
  bool is_dir = false;
  // The inode block's size and inline-data flag as the read path last saw
  // them (the kernel keeps i_size and FI_INLINE_DATA in the in-memory
  // inode): valid while `read_fields_known`. NodeManager::MutInodeBlock,
  // through which every change of an inode block goes, clears it;
  // NodeManager::ReadFields refreshes it from the block.
  struct ReadFields {
    uint64_t size = 0;
    bool inline_data = false;
  };
  ReadFields read_fields;
  bool read_fields_known = false;
  vfs::RwLock lock;                // i_rwsem
  uint32_t refs = 0;          // open files + operations in progress
  bool unlinked = false;      // no link left; freed at the last reference (orphan)
  bool freed = false;         // blocks and nodes released; deleted at the last reference
  // Cached data (or dentry) pages by index. DataPages::New, Drop and
  // Unlink are its only writers.
  vfs::PageSlots<DataPage> pages;
  vfs::PageIndexSet dirty_index;  // indices of dirty pages
  uint64_t dirty_pages = 0;
  // Flusher list (inodes with dirty data pages, oldest first).
  vfs::WritebackState wb;
  // Per-file dirty node list.
  DirtyNodeList dirty_nodes;
  // FI_* flags.
  bool append_write = false;
  bool update_write = false;
  bool need_ipu = false;
  bool time_dirty = false;
  bool trans_dir = false;  // directory entries changed since the last checkpoint
  uint64_t ra_next = UINT64_MAX;  // next page of a sequential read stream
  // Where a renamed file now lives (i_pino/i_name are fixed by the next
  // fsync's checkpoint, like try_to_fix_pino).
  Nid cur_pino;
  std::string cur_name;
  uint32_t fsyncs_in_flight = 0;
  uint32_t wb_writes = 0;  // data block writes of this file in flight (any writer)
  // Transactions (tx_manager.h): membership and the running writes; while
  // a commit applies them, every data write of the file goes out of
  // place (tx_commit) and the blocks it replaces are collected in
  // tx_revoke, invalidated once the commit is durable.
  std::unique_ptr<TxFile> tx;
  bool tx_commit = false;
  std::vector<BlockAddr>* tx_revoke = nullptr;
};

class InodeTable {
 public:
  using Map = std::unordered_map<uint32_t, std::unique_ptr<Inode>>;

  // One load from by_ino_ (the map's lookup walks a bucket chain: a
  // cache miss per node on every path lookup).
  Inode* Find(Nid ino) const { return ino.v < by_ino_.size() ? by_ino_[ino.v] : nullptr; }
  // Takes a new inode (its ino is not in the table); returns it.
  Inode* Insert(std::unique_ptr<Inode> in) {
    Inode* raw = in.get();
    CHECK(Find(raw->ino) == nullptr) << "inode " << raw->ino.v << " is already in the table";
    CHECK(raw->ipage != nullptr && raw->ipage->blk->inode) << "inode " << raw->ino.v << " without its inode block";
    raw->is_dir = raw->ipage->blk->inode->is_dir;
    if (raw->ino.v >= by_ino_.size()) by_ino_.resize(std::max<size_t>(raw->ino.v + 1, 2 * by_ino_.size()), nullptr);
    by_ino_[raw->ino.v] = raw;
    inodes_[raw->ino.v] = std::move(in);
    return raw;
  }
  // Deletes an inode in the table (idle: nothing references it).
  void Evict(Inode* in) {
    by_ino_[in->ino.v] = nullptr;
    inodes_.erase(in->ino.v);
  }
  // Moves a freed inode out of the table; it lives until DropRetired.
  void Retire(Inode* in);
  void DropRetired(Inode* in);
  const Map& all() const { return inodes_; }

  void AddOrphan(Nid ino) { orphans_.insert(ino.v); }
  void RemoveOrphan(Nid ino) { orphans_.erase(ino.v); }
  bool IsOrphan(Nid ino) const { return orphans_.count(ino.v) > 0; }
  const std::set<uint32_t>& orphans() const { return orphans_; }

  void MarkTimeDirty(Inode* in) {
    if (!in->time_dirty) time_dirty_inos_.push_back(in->ino.v);
    in->time_dirty = true;
  }
  void MarkTransDir(Inode* dir) {
    if (!dir->trans_dir) trans_dir_inos_.push_back(dir->ino.v);
    dir->trans_dir = true;
  }
  // Calls `f` for every inode of the time_dirty list still in the table,
  // in marking order, then empties the list. `f` must not mark inodes.
  template <class F>
  void SyncTimeDirty(F&& f) {
    for (const uint32_t ino : time_dirty_inos_) {
      if (Inode* in = Find(Nid{ino})) f(in);
    }
    time_dirty_inos_.clear();
  }
  // Clears the trans_dir flag of every inode of the list; empties it.
  void ClearTransDir();

  void KillLocks();
  bool killed() const { return killed_; }

 private:
  Map inodes_;
  std::vector<Inode*> by_ino_;  // the inodes of inodes_ by ino; nullptr where none
  std::vector<std::unique_ptr<Inode>> retired_;  // freed, still referenced
  std::set<uint32_t> orphans_;
  // Inodes whose time_dirty / trans_dir flag was set since the checkpoint
  // last cleared them (a superset of those that still have it).
  std::vector<uint32_t> time_dirty_inos_;
  std::vector<uint32_t> trans_dir_inos_;
  bool killed_ = false;
};

// Holds a reference on an Inode for the duration of an operation.
class InodeRef {
 public:
  InodeRef() = default;
  InodeRef(InodeTable* t, Inode* i) : t_(t), i_(i) {
    if (i_) ++i_->refs;
  }
  InodeRef(InodeRef&& o) noexcept : t_(o.t_), i_(o.i_) { o.i_ = nullptr; }
  InodeRef& operator=(InodeRef&& o) noexcept;
  ~InodeRef();
  Inode* get() const { return i_; }
  Inode* operator->() const { return i_; }
  explicit operator bool() const { return i_ != nullptr; }

 private:
  InodeTable* t_ = nullptr;
  Inode* i_ = nullptr;
};

}  // namespace fs::f2fs
