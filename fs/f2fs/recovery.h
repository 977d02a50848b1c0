// Recovery: the F2FS model's mount-time recovery after the checkpoint was
// loaded — orphan inodes freed (f2fs_recover_orphan_inodes) and roll-forward
// recovery of fsynced dnodes (f2fs_recover_fsync_data, recovery.c).
//
// Contract:
// - RecoverOrphans frees every inode the checkpoint listed as orphan (no
//   link left, still open when it was written).
// - RollForward, pass 1 (find_fsync_dnodes): follows the warm node log's
//   chain from the checkpoint's write position while the blocks carry the
//   checkpoint's version, collecting per inode the last FSYNC-marked dnode
//   and the last DENT-marked inode block; a new file's inode (DENT, its nid
//   free) is re-created at once (f2fs_recover_inode_page); a transaction's
//   master node counts as its members' last fsync. Nothing found: done (on
//   a device of erase-before-reuse the logs still move past what was
//   written after the checkpoint, Host::MoveLogsPastUncheckpointedWrites).
// - Pass 2 (recover_data), under cp_rwsem shared, in chain order up to each
//   inode's last fsync: an inode block sets size, times and inline data and,
//   when DENT-marked, re-links the name (recover_dentry: another file's
//   link under the name is dropped; a directory holding it stays and the
//   file is not re-linked; with the journal an inode that existed before
//   roll-forward keeps the journal's names); a dnode's addresses are
//   adopted by file offset (blocks already valid elsewhere are skipped).
//   Recovered new files left without a name are released; blocks beyond a
//   recovered size are dropped; no log may overwrite an adopted block
//   afterwards (the logs move to new segments, or past the device's write
//   pointers). Recovery proceeds even over the user block limit.
// - The caller writes the recovery checkpoint when anything was recovered
//   (recovered_inodes/dnodes grew).
//
// State owned: none between calls (the chain and entries are local); the
// fs.recovery.{inodes,dnodes,dentries} counters are the F2fs's, passed in.
// Locks: cp_rwsem shared for pass 2 (no other operation runs at mount).
//
// Who calls it: the F2fs's mount. It calls the NodeManager (NAT, node pages,
// dnodes), NamespaceManager (iget, lookups and links), SegmentManager,
// IoManager (the chain's reads), InodeTable, DataPages, the page cache,
// CheckpointManager (version, cp_rwsem), TxManager (recovered
// transactions) and, through its Host, inode freeing, space accounting
// and the logs' moves.
#pragma once

#include <cstdint>
#include <vector>

#include "fs/f2fs/checkpoint_manager.h"
#include "fs/f2fs/data_pages.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/namespace_manager.h"
#include "fs/f2fs/nat_table.h"
#include "fs/f2fs/node_manager.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/f2fs/tx_manager.h"
#include "fs/vfs/page_cache.h"
#include "fs/vfs/sync_primitives.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/task.h"

namespace fs::f2fs {

class Recovery {
 public:
  class Host {
   public:
    virtual ~Host() = default;
    // Frees an unlinked inode (its pages, blocks and nodes).
    virtual sim::Task<void> FreeInode(Inode* inode) = 0;
    // A block recovery adopted or an inode it re-created: counted valid
    // without the user limit's check.
    virtual void AddRecoveredBlock() = 0;
    virtual void InodeCreated() = 0;  // valid_inode_count
    virtual sim::Status MoveLogsPastUncheckpointedWrites(bool all) = 0;
  };
  struct Counters {
    sim::Counter* inodes = nullptr;
    sim::Counter* dnodes = nullptr;
    sim::Counter* dentries = nullptr;
  };
  struct Deps {
    const Layout* layout = nullptr;
    sim::EventQueue* events = nullptr;
    Image* image = nullptr;
    vfs::PageCache* cache = nullptr;
    IoManager* io = nullptr;
    SegmentManager* sm = nullptr;
    NatTable* nat = nullptr;
    NodeManager* nodes = nullptr;
    NamespaceManager* ns = nullptr;
    InodeTable* inodes = nullptr;
    DataPages* pages = nullptr;
    CheckpointManager* cp = nullptr;
    TxManager* tx = nullptr;
    vfs::LockClass* i_rwsem = nullptr;  // a re-created inode's lock class
    bool journal = false;               // durability mode journal
    bool erase_before_reuse = false;    // a device of fixed placement or zones
    Counters counters;
    Host* host = nullptr;
  };
  explicit Recovery(const Deps& d);
  Recovery(const Recovery&) = delete;
  Recovery& operator=(const Recovery&) = delete;

  sim::Task<void> RecoverOrphans(const std::vector<Nid>& orphans);
  sim::Task<sim::Status> RollForward();

 private:
  const InodeFields& I(const Inode* inode) const { return nodes_->I(inode); }

  const Layout& layout_;
  sim::EventQueue* q_;
  Image* image_;
  vfs::PageCache* cache_;
  IoManager* io_;
  SegmentManager* sm_;
  NatTable* nat_;
  NodeManager* nodes_;
  NamespaceManager* ns_;
  InodeTable* itab_;
  DataPages* dp_;
  CheckpointManager* cpm_;
  TxManager* txm_;
  vfs::LockClass* i_rwsem_;
  const bool journal_;
  const bool erase_before_reuse_;
  Counters n_;
  Host* host_;
};

}  // namespace fs::f2fs
