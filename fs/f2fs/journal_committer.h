// JournalCommitter: the commit side of the journal durability mode
// (F2FS-J) — what makes the records operations append to the Journal
// (journal.h) durable: the epoch commit (the artifact's
// trigger_epoch_commit and its commit thread's body), fsync through the
// journal, and the CPU an operation spends appending its records.
//
// Contract:
// - Commit() commits the running epoch, if it holds records and no commit
//   runs: the operations log into the next epoch at once; ordered mode
//   (records all) first waits for every data write submitted before it;
//   records a checkpoint covered meanwhile are dropped; a journal too full
//   for the rest asks the CheckpointManager for a checkpoint
//   (CpReason::kJournal) until they fit. The blocks are written in runs of
//   consecutive blocks (the ring may wrap); with barrier the last one, the
//   commit block, after a cache flush with FUA; with commit_wait false
//   (the artifact's REQ_SYNC commit) nothing is waited for. Returns once
//   records below the commit's key are durable (a checkpoint in progress
//   that covered some: once it commits).
// - Sync(target) returns once every record below `target` is durable,
//   committing, waiting for a running commit or for a running checkpoint
//   (which covers the records not committing) as needed.
// - Fsync(inode) (fs.f2fs.journal.fsync commit): a regular file's data
//   written and waited for (writes others submitted too), an fsync record
//   of its size and inline data under cp_rwsem shared, then Sync up to
//   the journal's head.
// - Cpu() charges the CPU of the records appended: with records all, one
//   record plus those owed (OweRecordCpu: data-block records whose time the
//   data path defers); with records namespace, the records appended since
//   the last call. Under list_lock global the time is spent inside one
//   spinlock every appender contends for; per-inode lists are uncontended.
// - Checkpointed(seq): a checkpoint made the records below `seq` durable.
//
// State owned: whether a commit runs (one at a time), the sequence number
// below which records are durable, the wait queue of commits ending, the
// owed and charged record counts, and the fs.journal commit statistics.
// Locks: cp_rwsem shared for the fsync record (CheckpointManager::LockOp);
// journal_list (the global spinlock or the per-inode lists' class).
//
// Who calls it: the F2fs (the commit thread, operations' record CPU,
// the data path's owed records, the checkpoint's host side), the
// FsyncManager through its host (Fsync). It calls the Journal, the
// IoManager, the CheckpointManager, the NodeManager (inode fields), the
// Durability mode (a record's CPU) and through its Host the data path's
// writeback and the CPU.
#pragma once

#include <cstdint>

#include "fs/f2fs/checkpoint_manager.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/fsync_manager.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/journal.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/node_manager.h"
#include "fs/file_system.h"
#include "fs/vfs/sync_primitives.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"

namespace fs::f2fs {

struct JournalCommitStats {
  sim::Counter commits, blocks, space_checkpoints, fsync_commits;
  sim::Histogram commit_lat, commit_records;
};

class JournalCommitter {
 public:
  class Host {
   public:
    virtual ~Host() = default;
    virtual bool Dead() const = 0;
    virtual sim::CpuBurst Cpu(sim::SimTime d) = 0;
    virtual sim::Task<void> WritebackInode(Inode* inode, uint64_t max_pages, bool wait, bool from_cp) = 0;
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
    const Layout* layout = nullptr;
    sim::EventQueue* events = nullptr;
    Journal* journal = nullptr;
    Durability* durability = nullptr;
    IoManager* io = nullptr;
    NodeManager* nodes = nullptr;
    CheckpointManager* cp = nullptr;
    FsyncManager* fsync = nullptr;       // its data-phase latency
    vfs::LockClass* list_class = nullptr;  // journal_list
    vfs::SpinLock* list_lock = nullptr;    // list_lock global; null: per-inode lists
    Host* host = nullptr;
  };
  explicit JournalCommitter(const Deps& d);
  JournalCommitter(const JournalCommitter&) = delete;
  JournalCommitter& operator=(const JournalCommitter&) = delete;

  sim::Task<void> Commit();
  sim::Task<void> Sync(uint64_t target);
  sim::Task<Errno> Fsync(Inode* inode);
  sim::Task<void> Cpu();
  // A data block's record appended; its CPU is charged by the next Cpu().
  void OweRecordCpu() { ++cpu_owed_; }
  void Checkpointed(uint64_t record_seq);
  // Records below it are durable (a commit or a checkpoint).
  uint64_t durable_seq() const { return durable_seq_; }
  // records all: data blocks' new addresses are journaled (DATA_WRITE), so
  // commits order that data.
  bool data_records() const { return data_records_; }
  void Kill() { wq_.Kill(); }  // power cut

  JournalCommitStats& stats() { return stats_; }
  const JournalCommitStats& stats() const { return stats_; }

 private:
  const JournalConfig& jc_;
  const Layout& layout_;
  sim::EventQueue* q_;
  Journal* journal_;
  Durability* durability_;
  IoManager* io_;
  NodeManager* nodes_;
  CheckpointManager* cpm_;
  FsyncManager* fsm_;
  vfs::LockClass* list_class_;
  vfs::SpinLock* list_lock_;
  Host* host_;
  const bool data_records_;

  bool committing_ = false;
  uint64_t durable_seq_ = 0;
  uint64_t cpu_owed_ = 0;
  uint64_t records_charged_ = 0;  // records namespace: appended records charged so far
  vfs::WaitQueue wq_;  // commits finishing
  JournalCommitStats stats_;
};

}  // namespace fs::f2fs
