// TxManager: transactions of the F2FS model — exF2FS's multi-file
// transactions (f2fs_ioc_{add,start,commit,end}_atomic_file_set: the
// application names the files of a set) and F2FS's single-file atomic
// write (f2fs_ioc_{start,commit,abort}_atomic_write), which they
// generalize.
//
// Contract:
// - Add/Start/Commit/End and AtomicWriteStart/Commit/Abort are the
//   FileSystem calls of the same names (fs/file_system.h): each counts a
//   syscall's CPU, refuses with EOPNOTSUPP under the journal durability
//   mode (F2FS-J replays metadata records only: no commit record for a
//   group of files), and answers EBUSY while its set commits or ends.
// - Running transaction: a member's writes and truncates go to its TxFile
//   (exF2FS's inmem pages), not to the page cache (Read/Write/Truncate,
//   called by the data path for a member of a running set: Running()); the
//   flusher, fsync, sync and checkpoints never see them; reads and stat of
//   the member do. Joining or starting writes the member's dirty data back
//   first, so the transaction starts from what the file holds.
// - Stealing (exF2FS's stolen pages): when the held pages and the dirty file
//   data pass dirty_ratio of the page cache, the writer's held pages are
//   written early to blocks no dnode names (valid in the SIT, owned in the
//   SSA by (ino, kStolenOfs)); a checkpoint lists them (FillStolen) and
//   mount frees them. Shadow GC: cleaning moves a stolen block with
//   MoveStolen; it stays the transaction's.
// - Commit (CommitSet): f2fs_balance_fs; every member's i_rwsem exclusive
//   (ino order); cp_rwsem shared for the whole commit, so no checkpoint
//   persists a half-applied transaction; the held writes applied (through
//   the host's data path, in_commit) and written in one batch, out of
//   place; the old blocks collected, invalidated only once the commit is
//   durable; the members' dnodes without fsync marks; then the commit
//   record with REQ_PREFLUSH | REQ_FUA — the master node naming the
//   members for a set, the inode page FSYNC-marked for a single file —
//   after every earlier warm-node write. A member that needs a checkpoint
//   for fsync (need_do_checkpoint) or whose dentry no checkpoint has
//   commits by a checkpoint instead. A commit that fails its space check
//   leaves the transaction running and the members untouched.
// - Master nodes take a block of the warm node log (no nid, SSA owner nid
//   0) and stay valid until the next checkpoint covers their transactions
//   (ReleaseCoveredMasterNodes, called by the checkpoint before it writes
//   the SIT): until then nothing, SSR included, may reuse a block
//   roll-forward recovery reads.
//
// State owned: the sets by key (with references on their members), the
// key counter, the live master nodes, the stolen blocks' owners, the
// wait queue of commits ending, and the fs.tx.* statistics (registered at
// the first transaction call or recovered transaction, so a run without
// transactions keeps its results). The members' TxFile is the Inode's
// (inode_table.h), changed under the member's i_rwsem. Locks: each
// member's i_rwsem (exclusive to start, abort and commit), cp_rwsem shared
// (CheckpointManager::LockOp) for every change of block validity.
//
// Who calls it: the F2fs (the FileSystem calls, the data path for running
// members, fsync's end, cleaning's shadow GC, the checkpoint's host side,
// mount's recovery count, fsck). It calls the IoManager, SegmentManager,
// NodeManager, CheckpointManager, FsyncManager (the checkpoint checks),
// Durability (block updates), DataPages, InodeTable and Image, and through
// its Host the data path, space accounting and foreground cleaning.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/checkpoint_manager.h"
#include "fs/f2fs/data_pages.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/fsync_manager.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/node_manager.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/file_system.h"
#include "fs/vfs/page_cache.h"
#include "fs/vfs/sync_primitives.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"

namespace fs::f2fs {

struct TxStats {
  sim::Counter commits, commit_checkpoints, aborts, pages, master_nodes, recovered, stolen, stolen_moved;
  sim::Histogram commit_lat;
};

class TxManager {
 public:
  class Host {
   public:
    virtual ~Host() = default;
    virtual bool Dead() const = 0;
    virtual sim::CpuBurst Cpu(sim::SimTime d) = 0;
    // A request arrived now (the durability mode's idle checks).
    virtual void RequestArrived() = 0;
    // The inode behind an open descriptor and its open flags.
    virtual FsResult<Inode*> FdInode(Fd fd, uint32_t* flags) = 0;
    virtual sim::Task<void> BalanceFs() = 0;  // f2fs_balance_fs
    // The data path (data_path.h).
    virtual sim::Task<void> WritebackInode(Inode* inode, uint64_t max_pages, bool wait, bool from_cp) = 0;
    virtual sim::Task<Errno> DoRead(Inode* inode, uint64_t offset, uint8_t* dst, uint64_t len, uint64_t* done) = 0;
    virtual sim::Task<Errno> DoWrite(Inode* inode, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
                                     uint64_t* done, bool in_commit) = 0;
    virtual sim::Task<Errno> DoTruncate(Inode* inode, uint64_t size, bool in_commit) = 0;
    virtual sim::Task<Errno> ConvertInlineData(Inode* inode) = 0;
    virtual sim::Task<Errno> WriteDataPage(Inode* inode, DataPage* p, bool hot, bool sync, WriteBatcher& wb) = 0;
    virtual LogType DataLogType(const Inode* inode, bool hot, bool gc) const = 0;
    // Space accounting (total_valid_block_count).
    virtual bool NeedSsr() const = 0;
    virtual bool IncValidBlocks(uint64_t n) = 0;
    virtual void DecValidBlocks(uint64_t n) = 0;
    virtual uint64_t ValidBlocks() const = 0;
    // A master node's block, its room checked by the commit (not counted
    // as allocated since the checkpoint).
    virtual void AddMasterNodeBlock() = 0;
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
    const Layout* layout = nullptr;
    sim::EventQueue* events = nullptr;
    Image* image = nullptr;
    const vfs::PageCache* cache = nullptr;  // its limit: the stealing threshold
    const vfs::Writeback* writeback = nullptr;  // dirty file data: the stealing threshold
    IoManager* io = nullptr;
    SegmentManager* sm = nullptr;
    AllocationPolicy* alloc = nullptr;
    NodeManager* nodes = nullptr;
    InodeTable* inodes = nullptr;
    DataPages* pages = nullptr;
    CheckpointManager* cp = nullptr;
    FsyncManager* fsync = nullptr;
    Durability* durability = nullptr;
    bool journal = false;  // durability mode journal: transactions refused
    sim::StatGroup stats{nullptr, ""};  // the file system's group (fs.tx.* below it)
    sim::Counter* ssr_blocks = nullptr;         // fs: blocks allocated by SSR
    sim::Counter* app_bytes_written = nullptr;  // fs: bytes the application wrote
    Host* host = nullptr;
  };
  explicit TxManager(const Deps& d);
  TxManager(const TxManager&) = delete;
  TxManager& operator=(const TxManager&) = delete;

  // ---- The FileSystem calls.
  sim::Task<FsResult<uint64_t>> Add(uint64_t key, Fd fd);
  sim::Task<FsStatus> Start(uint64_t key);
  sim::Task<FsStatus> Commit(uint64_t key);
  sim::Task<FsStatus> End(uint64_t key);
  sim::Task<FsStatus> AtomicWriteStart(Fd fd);
  sim::Task<FsStatus> AtomicWriteCommit(Fd fd);
  sim::Task<FsStatus> AtomicWriteAbort(Fd fd);

  // ---- A running member's data (the caller holds what DoRead, DoWrite
  // and DoTruncate would need: i_rwsem as the data path takes it).
  static bool Running(const Inode* in) { return in->tx && in->tx->running; }
  sim::Task<Errno> Read(Inode* in, uint64_t offset, std::span<uint8_t> out, uint64_t* done);
  sim::Task<Errno> Write(Inode* in, uint64_t offset, std::span<const uint8_t> data, uint64_t length, uint64_t* done);
  sim::Task<Errno> Truncate(Inode* in, uint64_t size);

  // ---- Others' hooks.
  // An fsync of `in` ended: a commit waiting for it may go on.
  void FsyncEnded(const Inode* in) {
    if (in->tx && !host_->Dead()) wq_.NotifyAll();
  }
  // Shadow GC: moves stolen block `a` to the cleaning log through `wb`;
  // false if it is no longer stolen.
  bool MoveStolen(BlockAddr a, WriteBatcher& wb);
  // The checkpoint, before it writes the SIT: the master nodes written
  // since the last one are covered now and go.
  void ReleaseCoveredMasterNodes();
  // The checkpoint pack's list of stolen blocks, sorted.
  void FillStolen(std::vector<uint32_t>* out) const;
  uint64_t stolen_blocks() const { return stolen_owner_.size(); }
  // Mount: a committed transaction roll-forward recovery replayed.
  void CountRecovered() { stats_.recovered.Inc(); }
  void RegisterStats();
  void Kill() { wq_.Kill(); }  // power cut

  // ---- fsck's view.
  const std::vector<BlockAddr>& live_masters() const { return live_masters_; }
  // Stolen block -> (ino, page index).
  const std::unordered_map<uint32_t, std::pair<Nid, uint64_t>>& stolen_owners() const { return stolen_owner_; }

  const TxStats& stats() const { return stats_; }

 private:
  // A transaction set: members in the order added (exF2FS's list is
  // FILO; the commit orders nothing by it).
  struct TxSet {
    uint64_t key = 0;
    bool single = false;  // a single-file atomic write (no key for the user)
    bool running = false;
    bool committing = false;
    std::vector<InodeRef> members;
  };
  const InodeFields& I(const Inode* inode) const { return nodes_->I(inode); }
  TxSet* FindSet(uint64_t key);
  Errno Usable() const;
  FsResult<Inode*> FileOf(Fd fd);
  // The single-file atomic write set of `fd` (syscall cost counted): EINVAL
  // if it has none, EBUSY while it commits or aborts.
  sim::Task<FsResult<TxSet*>> SingleSetOf(Fd fd);
  // The multi-file set `key` (syscall cost counted): ENOENT if there is none
  // (or it is a single-file atomic write's), EBUSY while it commits or ends.
  sim::Task<FsResult<TxSet*>> MultiSetOf(uint64_t key);
  sim::Task<Errno> AddInode(TxSet* set, Inode* in);
  sim::Task<Errno> StartSet(TxSet* set);
  sim::Task<Errno> CommitSet(TxSet* set);
  // Drops the running writes of every member (abort).
  sim::Task<void> AbortSet(TxSet* set);
  void RemoveSet(uint64_t key);
  // Pages held in memory by running transactions.
  uint64_t HeldPages() const;
  // Stealing: writes every page `in`'s transaction holds in memory to new
  // blocks (one batch, waited for); they stay out of the file's dnodes
  // until the commit.
  sim::Task<void> StealPages(Inode* in);
  // A stolen block no longer needed (rewritten, truncated, aborted).
  void ReleaseStolen(BlockAddr a);
  // The content of stolen page `idx` of `in` (read from its block).
  sim::Task<std::shared_ptr<DataBlock>> ReadStolen(Inode* in, uint64_t idx);
  // At commit (cp_rwsem held): the file's dnodes take its stolen blocks;
  // the blocks they replace go to `revoke`.
  sim::Task<Errno> TakeStolen(Inode* in, std::vector<BlockAddr>* revoke);
  // Writes the master node: the member list, FSYNC-marked.
  void WriteMasterNode(const std::vector<Nid>& members, WriteBatcher& wb);

  const F2fsConfig& cfg_;
  const Layout& layout_;
  sim::EventQueue* q_;
  Image* image_;
  const vfs::PageCache* cache_;
  const vfs::Writeback* wb_;
  IoManager* io_;
  SegmentManager* sm_;
  AllocationPolicy* alloc_;
  NodeManager* nodes_;
  InodeTable* itab_;
  DataPages* dp_;
  CheckpointManager* cpm_;
  FsyncManager* fsm_;
  Durability* durability_;
  const bool journal_;
  sim::StatGroup stat_group_;
  sim::Counter* ssr_blocks_;
  sim::Counter* app_bytes_written_;
  Host* host_;

  std::map<uint64_t, TxSet> sets_;
  uint64_t next_key_ = 1;
  // Master nodes written since the last checkpoint (see the contract).
  std::vector<BlockAddr> live_masters_;
  // Stolen blocks of running transactions -> (ino, page index).
  std::unordered_map<uint32_t, std::pair<Nid, uint64_t>> stolen_owner_;
  bool stats_registered_ = false;
  vfs::WaitQueue wq_;  // commits finishing
  TxStats stats_;
};

}  // namespace fs::f2fs
