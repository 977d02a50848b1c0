// CheckpointManager: what makes the F2FS model's state durable as a whole —
// the kernel's checkpoint (checkpoint.c: f2fs_write_checkpoint,
// block_operations, do_checkpoint, commit_checkpoint) with cp_rwsem
// (f2fs_lock_op / f2fs_lock_all) and checkpoint_merge's sharing of one
// checkpoint among concurrent requesters.
//
// Contract:
// - LockOp() is f2fs_lock_op: cp_rwsem shared, the wait recorded as a
//   checkpoint stall (fs.cp.stall). Every operation that changes metadata
//   holds it across its change, so a checkpoint (which holds it exclusive
//   from block_operations to its commit) sees no half-done operation.
// - Checkpoint(reason) returns once a checkpoint that started after the
//   call has finished (or the file system died): a request arriving while
//   one runs needs the next one, concurrent requesters share it. A
//   checkpoint is skipped when nothing is left to persist
//   (Host::HasUncheckpointedChanges, no orphan) unless it is umount's or
//   recovery's.
// - What a checkpoint may change: it writes the dirty dentry pages (through
//   the host, with cp_rwsem released between rounds, at most
//   kUnlockedDentryRounds of them), the inodes' lazily kept times
//   (Host::SyncInodeMeta), every dirty node page (NodeManager::WriteNodePage,
//   non-dnodes first, then directory dnodes, then file dnodes), the NAT/SIT
//   and SSA (CheckpointWriter::FlushMeta) and the CP pack; it waits for the
//   writes a checkpoint guarantees (IoManager::WaitCheckpointWrites), then
//   flushes and writes the commit block with FUA. Once durable: prefree
//   segments become free and what they held is forgotten by the image,
//   trimmed (fixed placement) or queued for discard, the journal's covered
//   records are released, the durability mode and the listener are told,
//   trans_dir flags are cleared and idle inodes may be evicted (host).
//   Nothing else: namespace, data pages and transactions are the host's,
//   reached only through Host.
// - Journal mode (F2FS-J): the records appended before the checkpoint fixed
//   its state are covered (covered_record_seq); once it commits they are
//   durable (durable_record_seq, WaitRecordsCheckpointed). With apply:
//   committed, background, journal and sync checkpoints first run the
//   host's apply (Host::ApplyCommitted) with operations going on.
// - Kill() (power cut): cp_rwsem and the waiters are killed; a checkpoint
//   in progress stops at its next suspension point.
//
// State owned: cp_rwsem, the checkpoint version, the bookkeeping of running
// and finished checkpoints (started/completed/begun, active, the wait queue
// of their ends), the journal sequence numbers a checkpoint covers and has
// made durable, the checkpoint listener and the fs.cp statistics. Guarded:
// cp_rwsem is the lock itself; the rest changes only in synchronous
// sections of the checkpoint (between suspension points), the version and
// the durable sequence while cp_rwsem is held exclusive.
//
// Who calls it: every modifying operation (LockOp), fsync, sync, umount,
// mount, cleaning, the journal's commit, transactions and the background
// checks (Checkpoint). It calls the NodeManager (the dirty node pages),
// the CheckpointWriter, the SegmentManager, the InodeTable (orphans,
// trans_dir), the Durability mode and its Journal, the IoManager, the
// DiscardManager, the Image and, for what the file system's other parts
// own, its Host.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "fs/f2fs/checkpoint_writer.h"
#include "fs/f2fs/discard_manager.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/journal.h"
#include "fs/f2fs/node_cache.h"
#include "fs/f2fs/node_manager.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/vfs/sync_primitives.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"

namespace fs::f2fs {

// Why a checkpoint runs (stats and skip rules).
enum class CpReason : uint8_t { kSync, kUmount, kFsync, kGc, kBackground, kRecovery, kJournal, kCount };

// Observer of checkpoints (crash tests): Begin is called once the
// checkpoint holds cp_rwsem for good, after its dentry writeback rounds
// (the state it persists is fixed), Committed once its commit block is
// durable.
class CheckpointListener {
 public:
  virtual ~CheckpointListener() = default;
  virtual void OnCheckpointBegin(uint64_t cp_ver) {}
  virtual void OnCheckpointCommitted(uint64_t cp_ver) {}
  // Durability mode journal: the running epoch closed; a replay that
  // ends with its commit restores the state of this instant. `key`: the
  // first record sequence number of the next epoch.
  virtual void OnJournalSwitch(uint64_t key) {}
};

struct CheckpointStats {
  sim::Counter count;
  std::array<sim::Counter, static_cast<int>(CpReason::kCount)> by_reason;
  sim::Histogram duration, stall;
  sim::Counter stall_ns, blocks;
};

class CheckpointManager {
 public:
  // What the checkpoint needs of the file system's other parts.
  class Host {
   public:
    virtual ~Host() = default;
    virtual bool Dead() const = 0;  // power cut
    // Anything a checkpoint would persist (dirty nodes, NAT/SIT entries,
    // dentry pages, SSA blocks, prefree segments).
    virtual bool HasUncheckpointedChanges() const = 0;
    virtual uint64_t DirtyDentryPages() const = 0;
    // Writes back every directory's dirty dentry pages (no cp_rwsem taken;
    // counts them in CheckpointStats::blocks).
    virtual sim::Task<void> SyncDirtyDirs() = 0;
    // Durability mode journal with apply: committed, and that apply.
    virtual bool ApplyCommittedMode() const = 0;
    virtual sim::Task<void> ApplyCommitted() = 0;
    virtual sim::CpuBurst Cpu(sim::SimTime d) = 0;  // a CPU burst of the caller
    // f2fs_sync_inode_meta: lazily kept times to the inode pages.
    virtual void SyncInodeMeta() = 0;
    // Transactions: master nodes this checkpoint covers become free.
    virtual void ReleaseCoveredMasterNodes() = 0;
    // The pack's space counts and stolen blocks.
    virtual void FillPackFacts(CheckpointWriter::PackFacts* facts) const = 0;
    // The checkpoint is durable (space accounting since the checkpoint
    // restarts); with a journal, records below `record_seq` are durable.
    virtual void CheckpointCommitted() = 0;
    virtual void JournalCheckpointed(uint64_t record_seq) = 0;
    virtual void EvictIdleInodes() = 0;
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
    sim::EventQueue* events = nullptr;
    Image* image = nullptr;
    SegmentManager* sm = nullptr;
    NodeManager* nodes = nullptr;
    InodeTable* inodes = nullptr;
    CheckpointWriter* writer = nullptr;
    Durability* durability = nullptr;
    Journal* journal = nullptr;  // durability's, if it has one
    IoManager* io = nullptr;
    DiscardManager* dm = nullptr;
    bool erase_before_reuse = false;  // fixed placement: trim freed sections whole
    vfs::LockClass* cp_rwsem = nullptr;
    Host* host = nullptr;
  };
  explicit CheckpointManager(const Deps& d);
  CheckpointManager(const CheckpointManager&) = delete;
  CheckpointManager& operator=(const CheckpointManager&) = delete;

  sim::Task<vfs::SharedLock> LockOp();  // f2fs_lock_op
  bool LockHeld() const { return !cp_lock_.idle(); }
  sim::Task<void> Checkpoint(CpReason reason);

  // A checkpoint is running; WaitRunning returns once the one running now
  // has finished (at once if none).
  bool running() const { return running_; }
  sim::Task<void> WaitRunning();
  // Returns when the next checkpoint ends (or the file system dies).
  sim::Task<void> WaitEnd() { co_await wq_.Wait(); }
  // Journal: returns once a committed checkpoint covers every record below `seq`.
  sim::Task<void> WaitRecordsCheckpointed(uint64_t seq);
  uint64_t covered_record_seq() const { return covered_record_seq_; }

  // Mount: the loaded checkpoint's version, and (journal) the record
  // sequence number it covers.
  void Loaded(uint64_t cp_ver) {
    cp_ver_ = cp_ver;
    completed_ = started_ = 0;
  }
  void JournalLoaded(uint64_t record_seq) { covered_record_seq_ = durable_record_seq_ = record_seq; }

  uint64_t version() const { return cp_ver_; }
  uint64_t begun() const { return begun_; }
  bool active() const { return active_; }
  void set_listener(CheckpointListener* l) { listener_ = l; }
  CheckpointListener* listener() const { return listener_; }
  CheckpointStats& stats() { return stats_; }
  const CheckpointStats& stats() const { return stats_; }

  // Power cut.
  void KillLock() { cp_lock_.Kill(); }
  void KillWaiters() { wq_.Kill(); }

 private:
  sim::Task<void> DoCheckpoint(CpReason reason);
  sim::Task<void> WriteMetaBlocks(std::vector<std::pair<BlockAddr, BlockPtr>>& blocks, Io kind, IoBatch* batch);

  const F2fsConfig& cfg_;
  sim::EventQueue* q_;
  Image* image_;
  SegmentManager* sm_;
  NodeManager* nodes_;
  InodeTable* itab_;
  CheckpointWriter* cpw_;
  Durability* durability_;
  Journal* journal_;
  IoManager* io_;
  DiscardManager* dm_;
  const bool erase_before_reuse_;
  Host* host_;
  CheckpointListener* listener_ = nullptr;

  vfs::RwLock cp_lock_;  // cp_rwsem
  uint64_t cp_ver_ = 0;
  bool running_ = false;
  bool active_ = false;   // DoCheckpoint past its skip test
  uint64_t begun_ = 0;    // checkpoints past their skip test
  uint64_t started_ = 0;
  uint64_t completed_ = 0;
  vfs::WaitQueue wq_;  // checkpoints ending
  // Journal: records below covered_record_seq_ are in the last checkpoint
  // begun, below durable_record_seq_ in a committed one.
  uint64_t covered_record_seq_ = 0;
  uint64_t durable_record_seq_ = 0;
  CheckpointStats stats_;
};

}  // namespace fs::f2fs
