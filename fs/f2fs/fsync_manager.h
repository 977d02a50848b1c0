// FsyncManager: fsync and fdatasync of the F2FS model — the kernel's
// f2fs_do_sync_file (file.c) with need_do_checkpoint (decided by the
// Durability mode), f2fs_fsync_node_pages and f2fs_need_dentry_mark /
// f2fs_need_inode_block_update (node.c).
//
// Contract:
// - SyncFile(inode, datasync) returns once the file's data and the
//   metadata needed to reach it are durable: with a journal and
//   fs.f2fs.journal.fsync commit, the host's journal fsync
//   (Host::JournalFsync); else (rollforward too) the file's dirty data written
//   and waited for (Host::WritebackInode, and writes others started), its
//   lazily kept time written (fsync, not fdatasync), then either a
//   checkpoint (when the durability mode says need_do_checkpoint), or the
//   file's dirty dnodes written to the warm node log with FSYNC marks
//   (DENT on an inode whose dentry no checkpoint or fsync made durable) and
//   waited for with every earlier warm-node write, then a cache flush
//   (unless fsync_mode is nobarrier). A file with nothing left to write
//   while a checkpoint runs waits for that checkpoint's commit.
// - FsyncNodePages: the lookup visits every dirty node page
//   (fsync_node_lookup kernel) or the file's dirty node list (list), CPU
//   charged per page visited; the writes happen under cp_rwsem shared.
// - NeedDoCheckpoint / NeedDentryMark also answer transactions' commits.
//
// State owned: the fs.fsync.* statistics. No lock of its own: an fsync
// takes no i_rwsem (it runs beside the file's writes, as f2fs_sync_file
// does), cp_rwsem shared for its node writes and inode update; the
// per-file count of fsyncs in flight is the Inode's.
//
// Who calls it: fsync/fdatasync, transactions' commits (the checks) and
// the journal's fsync (its statistics). It calls the CheckpointManager,
// the NodeManager, the IoManager, the Durability mode, the InodeTable and,
// for the data path, the journal and space counts, its Host.
#pragma once

#include <cstdint>

#include "fs/f2fs/checkpoint_manager.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/node_manager.h"
#include "fs/file_system.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"

namespace fs::f2fs {

struct FsyncStats {
  sim::Histogram total, data, node, flush, cp, visited;
  sim::Counter nodes_visited, nodes_written, checkpoints, calls;
};

class FsyncManager {
 public:
  class Host {
   public:
    virtual ~Host() = default;
    virtual bool Dead() const = 0;
    virtual sim::CpuBurst Cpu(sim::SimTime d) = 0;
    // The data path: writes back up to `max_pages` dirty pages of the file,
    // with `wait` waiting for them.
    virtual sim::Task<void> WritebackInode(Inode* inode, uint64_t max_pages, bool wait, bool from_cp) = 0;
    // Durability mode journal: fsync through the journal.
    virtual sim::Task<Errno> JournalFsync(Inode* inode) = 0;
    // An fsync of `inode` ended (a transaction's commit may wait for it).
    virtual void FsyncEnded(Inode* inode) = 0;
    // last_valid_block_count: total_valid_block_count when the last
    // checkpoint committed or was mounted.
    virtual uint64_t ValidBlocksAtCheckpoint() const = 0;
    virtual uint64_t AllocatedSinceCheckpoint() const = 0;  // alloc_valid_block_count
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
    sim::EventQueue* events = nullptr;
    IoManager* io = nullptr;
    NodeManager* nodes = nullptr;
    CheckpointManager* cp = nullptr;
    Durability* durability = nullptr;
    InodeTable* inodes = nullptr;
    bool journal = false;  // durability mode journal
    // With the journal: fsync commits it (fs.f2fs.journal.fsync commit);
    // false: stock F2FS fsync (rollforward) beside the journal.
    bool journal_fsync_commit = true;
    Host* host = nullptr;
  };
  explicit FsyncManager(const Deps& d);
  FsyncManager(const FsyncManager&) = delete;
  FsyncManager& operator=(const FsyncManager&) = delete;

  sim::Task<Errno> SyncFile(Inode* inode, bool datasync);
  // need_do_checkpoint, decided by the durability mode.
  bool NeedDoCheckpoint(Inode* inode);
  bool NeedDentryMark(Nid ino) const;
  bool NeedInodeBlockUpdate(Nid ino) const;
  // Writes the file's dirty dnodes with fsync marks; returns nodes written.
  sim::Task<uint32_t> FsyncNodePages(Inode* inode, IoBatch* batch);

  FsyncStats& stats() { return stats_; }
  const FsyncStats& stats() const { return stats_; }

 private:
  const InodeFields& I(const Inode* inode) const { return nodes_->I(inode); }

  const F2fsConfig& cfg_;
  sim::EventQueue* q_;
  IoManager* io_;
  NodeManager* nodes_;
  CheckpointManager* cpm_;
  Durability* durability_;
  InodeTable* itab_;
  const bool journal_;
  const bool journal_fsync_commit_;
  Host* host_;
  FsyncStats stats_;
};

}  // namespace fs::f2fs
