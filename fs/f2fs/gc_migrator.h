// GcMigrator: cleaning's block migration in the F2FS model — the kernel's
// do_garbage_collect (gc.c: gc_node_segment, gc_data_segment,
// move_data_page, f2fs_move_node_page). When to clean and which victim are
// the Cleaner's (cleaner.h); the Cleaner asks its host to migrate a
// section, and the F2fs hands that to this class.
//
// Contract:
// - Migrate(sec, foreground) moves every valid block of section `sec`
//   under cp_rwsem shared: a node block whose NAT entry still points at it
//   is dirtied (background: the next checkpoint writes it) or, in the
//   foreground, written to its log at once; a data block whose dnode still
//   names it goes through its page (cached, or read first: dirtied and
//   marked gcing, so it is never written in place; in the foreground
//   written at once, in the background by the page's next writeback; a
//   page under writeback is skipped in the background, as move_data_page's
//   -EAGAIN); a block a running transaction stole moves at once, staying
//   the transaction's (shadow GC, TxManager::MoveStolen). Foreground
//   migration (and any stolen move) waits for its writes. Returns the
//   blocks moved; CPU is charged per block examined and moved.
// - Concurrent migrations (per-region cleaning threads) allocate and
//   submit one at a time (the gc write lock), so a log's flash pages reach
//   the device in order.
//
// State owned: the gc write lock and the fs.gc moved-block counters (the
// F2fs's, passed in). Locks: cp_rwsem shared for a migration; the gc write
// lock (lock class gc_lock) while a segment's moves allocate and submit.
//
// Who calls it: the F2fs, for the Cleaner. It calls the SegmentManager
// (validity, summaries), the NodeManager (node loads, dirtying, node
// writes), the NamespaceManager (iget), DataPages and the page cache (the
// pages blocks move through), the DataPath (a data page's write), the
// TxManager (stolen blocks), the IoManager and, through its Host, the CPU.
#pragma once

#include <cstdint>

#include "fs/f2fs/checkpoint_manager.h"
#include "fs/f2fs/data_pages.h"
#include "fs/f2fs/data_path.h"
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
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"

namespace fs::f2fs {

class GcMigrator {
 public:
  class Host {
   public:
    virtual ~Host() = default;
    virtual sim::CpuBurst Cpu(sim::SimTime d) = 0;
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
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
    DataPath* data = nullptr;
    CheckpointManager* cp = nullptr;
    TxManager* tx = nullptr;
    vfs::LockClass* gc_lock = nullptr;  // the gc write lock's class
    sim::Counter* moved_fg = nullptr;   // fs.gc: blocks moved by foreground cleaning
    sim::Counter* moved_bg = nullptr;   // fs.gc: blocks moved by background cleaning
    Host* host = nullptr;
  };
  explicit GcMigrator(const Deps& d);
  GcMigrator(const GcMigrator&) = delete;
  GcMigrator& operator=(const GcMigrator&) = delete;

  sim::Task<uint32_t> Migrate(uint32_t sec, bool foreground);
  void Kill() { write_lock_.Kill(); }  // power cut

 private:
  const InodeFields& I(const Inode* inode) const { return nodes_->I(inode); }

  const F2fsConfig& cfg_;
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
  DataPath* dpath_;
  CheckpointManager* cpm_;
  TxManager* txm_;
  sim::Counter* moved_fg_;
  sim::Counter* moved_bg_;
  Host* host_;
  // Held by a migration while it allocates and submits its moved blocks.
  vfs::RwLock write_lock_;
};

}  // namespace fs::f2fs
