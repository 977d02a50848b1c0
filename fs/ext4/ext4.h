// Ext4: an ext4-like in-place-update file system with JBD2 journaling, on
// a simulated block device — the in-place baseline beside F2FS (ParaFS's
// Ext4 row, the aging study of seed 004).
//
// Construction (as the F2FS model):
//   Ext4::Image image(volume_bytes / 4096);
//   Ext4::Format(cfg, volume_bytes, &image);             // mke2fs (untimed)
//   auto fs = co_await Ext4::Mount(cfg, env);            // journal replay, orphans
//   ... workloads call the fs::FileSystem API from simulated threads ...
//   co_await fs->Unmount();                              // optional clean stop
// Destroy the Ext4 only after Unmount() returned or after the event queue
// was cleared (a power cut, then Kill()).
//
// What is modelled (kernel names in parentheses):
// - mke2fs's layout (on_disk.h): block groups of 32,768 blocks with block
//   and inode bitmaps and inode tables packed per flex group of 16,
//   superblock copies in groups 0, 1 and powers of 3, 5, 7, the journal in
//   the middle of the volume, 1 inode per 16 KiB.
// - Inode allocation: Orlov for directories (top-level directories spread
//   to flex groups with above-average free inodes and blocks and the fewest
//   directories, others near their parent), files in their parent's group
//   (find_group_orlov, find_group_other); the lowest free inode of the
//   group.
// - Block allocation (mballoc): delayed allocation — writes only reserve
//   space, writeback allocates each run of dirty pages at once; the goal is
//   the block after the file's previous extent, else the first block of the
//   inode's group (directories: the first group of its flex group, files
//   the next: ext4_inode_to_goal_block); the goal's free run if long enough
//   (ext4_mb_find_by_goal), else the first free run long enough scanning
//   groups from the goal's; small files (below mb_stream_request blocks)
//   take blocks from a locality-group preallocation of mb_group_prealloc
//   blocks, larger ones normalize the request to a power-of-two size class
//   up to 8 MiB and keep the rest as the inode's preallocation
//   (ext4_mb_normalize_request), dropped at truncate, unlink and last close.
//   Freed blocks stay unallocatable until the transaction that freed them
//   committed (ext4_free_data).
// - Extents: four in the inode, then a tree of 340-entry blocks.
// - Directories: linear while one block, then hashed (htree: a root block
//   mapping hash ranges to leaf blocks, leaves split in half by hash when
//   full, interior nodes past 507 leaves); readdir returns an indexed
//   directory in hash order (ext4_dx_readdir). Directories never shrink.
// - JBD2 in ordered mode: every metadata change joins the running
//   transaction (the blocks it dirtied) inside a handle (StartHandle: a
//   namespace call's spans its CPU time and the metadata reads after its
//   change; a write's timestamp update and writeback's block allocation
//   open one for the change; a truncate's spans the reads of its partial
//   last block and of its extent tree, as ext4_truncate's does). A commit first locks the running
//   transaction (T_LOCKED): new handles wait (wait_transaction_locked) and
//   the commit waits for the open ones to stop (jbd2_journal_wait_updates)
//   before it takes the blocks. The commit thread commits it
//   commit_interval after it started, or at once for fsync and sync:
//   ordered data (the writes of blocks allocated in the transaction) and
//   the log blocks (descriptors with tags, copies of the metadata as of the
//   commit, revoke records of freed metadata blocks) are written and waited
//   for, then (barrier) a cache flush and the commit block with FUA.
//   Committed metadata is written home by the flusher once older than
//   dirty_expire, or by a checkpoint when the log has no room for the next
//   commit, which then moves the log tail in the journal superblock (after
//   a flush, with FUA). Mount replays every committed transaction after the
//   tail (scan, revoke, replay passes), stopping at the first block out of
//   sequence, then frees orphans.
// - fsync (ext4_sync_file): the file's dirty pages written and waited for,
//   then a commit of the transaction holding the inode's last change
//   (fdatasync: its last size/extent change), or only a cache flush when
//   nothing is left to commit.
// - Page cache and writeback: the shared vfs::PageCache and vfs::Writeback
//   (fs/vfs/page_cache.h) hold file pages and metadata blocks; clean ones
//   are evicted LRU, drop_caches evicts every clean one; sequential reads
//   read ahead `readahead`; an inode-table miss reads up to
//   inode_readahead_blks blocks of the table around it, as far as inodes
//   are in use; a new inode-table block none of whose other inodes is in
//   use is not read (EXT4_STATE_NEW).
// - Linux 6.x besides: auto_da_alloc (ext4_alloc_da_blocks when a file
//   replaces another by rename, and at close after a truncate to 0); the
//   block layer's plug (writes submitted at one instant merge with the one
//   before when adjacent, up to max_io, FUA writes never); mtime/ctime/
//   atime from a coarse clock of timestamp_granularity (a write logs the
//   inode only when the tick moved: inode_needs_update_time); atime under
//   relatime, strictatime or noatime (reads and readdir); the superblock's
//   orphan list (s_last_orphan) logged by an unlink that frees an inode and
//   by a shrinking truncate; fsync of a directory as ext4_force_commit;
//   sync(2) flushing only when no commit sends the flush (ext4_sync_fs);
//   the flusher writing an expired file whole; drop_caches keeping the
//   metadata jbd2's checkpoint list references (written home since the
//   last commit began).
//
// Documented deviations: the file system's state lives in memory whole;
// what is cached is tracked per block, so a cold lookup, readdir, stat,
// extent walk or bitmap use pays the device read of each block it needs,
// but an operation makes its change first and reads the blocks it touched
// after (the kernel reads them first); the blocks a transaction logs are
// its blocks' content at the instant the commit takes it, after the open
// handles stopped; handles are only as long as the CPU time and reads the
// model puts inside them: a namespace call's reads after its change find
// the bitmaps its change made resident, so its handle spans CPU time only
// (the kernel's may also wait for bitmap, inode-table and extent reads,
// page locks and buffers the model does not put there); read-ahead is
// synchronous; the dentry hash is the model's own (seeded) string hash;
// the inode on disk keeps one timestamp (mtime; ctime and atime start
// from it after a mount); sync(2) is one call (the kernel's nowait-then-
// wait pair may flush once more when the first call's commit ended before
// the second); allocation changes a group's bitmaps without reading them;
// no lost+found, xattrs, quota, inline data, fallocate, or resize inode;
// mballoc scans block bitmaps first-fit instead of keeping buddies; the
// locality group is one (the kernel has one per CPU).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fs/ext4/ext4_config.h"
#include "fs/ext4/on_disk.h"
#include "fs/file_system.h"
#include "fs/fs_stats.h"
#include "fs/vfs/block_image.h"
#include "fs/vfs/fd_table.h"
#include "fs/vfs/page_cache.h"
#include "fs/vfs/path.h"
#include "fs/vfs/sync_primitives.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/task.h"
#include "ssd/block_device.h"

namespace fs::ext4 {

using Image = vfs::BlockImage<Block, BlockNo>;

class Ext4 final : public FileSystem,
                   private ssd::BlockClient,
                   private vfs::PageCache::Owner,
                   private vfs::WritebackHost {
 public:
  struct Env {
    sim::EventQueue* events = nullptr;
    ssd::BlockDevice* device = nullptr;  // sector size 512 or 4096
    Image* image = nullptr;              // outlives the Ext4
    sim::StatGroup stats{nullptr, ""};   // e.g. registry.Root().Group("fs")
    std::function<double()> device_write_amplification;
    // Optional: the host's CPUs (null: every CPU burst runs at once).
    sim::CpuScheduler* cpu = nullptr;
  };

  // Observer of commits (crash tests): Begin once the commit took the
  // transaction (the state it persists is fixed), Committed once its commit
  // block is durable.
  class Listener {
   public:
    virtual ~Listener() = default;
    virtual void OnCommitBegin(uint32_t tid) = 0;
    virtual void OnCommitted(uint32_t tid) = 0;
  };

  // mke2fs: writes the superblock, descriptors, bitmaps, inode tables, the
  // root directory and an empty journal durably. Errors name keys below
  // fs.ext4 or fs.volume.
  static sim::Status Format(const Ext4Config& cfg, uint64_t volume_bytes, Image* image);
  static sim::Task<sim::Result<std::unique_ptr<Ext4>>> Mount(const Ext4Config& cfg, Env env);

  ~Ext4() override;
  Ext4(const Ext4&) = delete;
  Ext4& operator=(const Ext4&) = delete;

  // Commits, writes everything home, stops the threads.
  sim::Task<void> Unmount();
  // Power cut: nothing is submitted or woken from now on; the caller
  // clears the event queue and cuts the image.
  void Kill();
  // fsck: bitmaps, group counts, extents, directory blocks and link counts
  // against each other. Ok or the first inconsistency.
  sim::Status Check() const;
  void SetListener(Listener* l) { listener_ = l; }

  sim::Task<FsResult<Fd>> Open(std::string_view path, uint32_t flags) override;
  sim::Task<FsStatus> Close(Fd fd) override;
  sim::Task<FsResult<uint64_t>> Read(Fd fd, std::span<uint8_t> out) override;
  sim::Task<FsResult<uint64_t>> Write(Fd fd, std::span<const uint8_t> data, uint64_t length) override;
  sim::Task<FsResult<uint64_t>> Pread(Fd fd, uint64_t offset, std::span<uint8_t> out) override;
  sim::Task<FsResult<uint64_t>> ReadDiscard(Fd fd, uint64_t length) override;
  sim::Task<FsResult<uint64_t>> PreadDiscard(Fd fd, uint64_t offset, uint64_t length) override;
  sim::Task<FsResult<uint64_t>> Pwrite(Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                       uint64_t length) override;
  sim::Task<FsStatus> Ftruncate(Fd fd, uint64_t size) override;
  sim::Task<FsStatus> Truncate(std::string_view path, uint64_t size) override;
  sim::Task<FsStatus> Fsync(Fd fd) override;
  sim::Task<FsStatus> Fdatasync(Fd fd) override;
  sim::Task<FsResult<FileStat>> Fstat(Fd fd) override;
  sim::Task<FsResult<FileStat>> Stat(std::string_view path) override;
  sim::Task<FsStatus> Unlink(std::string_view path) override;
  sim::Task<FsStatus> Mkdir(std::string_view path) override;
  sim::Task<FsStatus> Rmdir(std::string_view path) override;
  sim::Task<FsStatus> Rename(std::string_view from, std::string_view to) override;
  sim::Task<FsStatus> Link(std::string_view existing, std::string_view new_path) override;
  sim::Task<FsResult<std::vector<std::string>>> Readdir(std::string_view path) override;
  sim::Task<FsStatus> Sync() override;
  // echo 3 > drop_caches: every clean page and metadata block is evicted.
  FsStatus DropCaches() override;
  // data: data blocks; metadata: metadata written to its home location
  // (the journal's checkpoints, unjournaled superblock and bitmap updates);
  // journal: jbd2's blocks. ext4 has no cleaning and no checkpoint pack.
  WritesByOrigin writes_by_origin() const override {
    WritesByOrigin w;
    w[WriteOrigin::kData] = stats_.blocks_written[0].value();
    w[WriteOrigin::kMetadata] = stats_.blocks_written[1].value();
    w[WriteOrigin::kJournal] = stats_.blocks_written[2].value();
    return w;
  }

  const Layout& layout() const { return layout_; }
  uint32_t committed_tid() const { return committed_tid_; }
  uint64_t free_blocks() const;
  uint64_t AvailBlocks() const;
  uint64_t commits() const { return stats_.commits.value(); }
  // The volume blocks holding file block `index` of `path`'s inode (0 =
  // hole or not allocated yet), for tests.
  uint32_t BlockOf(uint32_t ino, uint64_t index) const;
  size_t cached_pages() const { return cache_.pages(); }
  // Whether the running transaction logs metadata block `blk` (tests).
  bool RunningLogs(uint32_t blk) const;

 private:
  struct Inode;
  struct DataPage;
  struct MetaPage;
  struct Tx;
  struct OpenFile {
    uint32_t ino = 0;
    uint32_t flags = 0;
    uint64_t pos = 0;
  };
  struct Lookup;
  enum class IoKind : uint8_t { kData, kMeta, kJournal, kCount };
  struct IoReq;

  Ext4(const Ext4Config& cfg, Env env, Layout layout);

  // ---- namespace (ext4.cc)
  Lookup Resolve(std::string_view path) const;
  sim::Task<void> WarmPath(std::string_view path);
  std::vector<uint32_t> WarmStep(uint32_t* cur, std::string_view comp, bool last) const;
  sim::Task<FsResult<Fd>> DoOpen(std::string_view path, uint32_t flags);
  FsStatus DoRename(std::string_view from, std::string_view to);
  bool IsAncestor(uint32_t a, uint32_t b) const;
  uint32_t Hash(std::string_view name) const;
  // Directory entries: add (growing the directory), remove.
  FsStatus AddEntry(Inode* dir, std::string_view name, uint32_t ino);
  void RemoveEntry(Inode* dir, std::string_view name);
  uint32_t LeafFor(const Inode* dir, uint32_t hash) const;
  uint32_t DirAppendBlock(Inode* dir);
  void MakeIndexed(Inode* dir);
  void SplitLeaf(Inode* dir, uint32_t lblk);
  std::vector<uint32_t> LookupBlocks(const Inode* dir, std::string_view name) const;  // volume blocks
  Inode* NewInode(bool is_dir, Inode* parent);
  void DropName(Inode* n);  // a name of n went away: free it when unused
  void MaybeFreeInode(Inode* n);
  void FreeInode(Inode* n);
  FileStat StatOf(const Inode& n) const;
  OpenFile* FileOf(Fd fd);
  vfs::RwLock& ILock(uint32_t ino);
  // A JBD2 handle (jbd2__journal_start .. jbd2_journal_stop): open while
  // an operation changes metadata. StartHandle waits while the running
  // transaction is locked for its commit (wait_transaction_locked), then
  // counts the handle in the transaction's updates (t_updates); the
  // commit locks the transaction and waits for its updates to drain
  // (jbd2_journal_wait_updates) before it takes the blocks to log.
  class Handle {
   public:
    Handle() = default;
    explicit Handle(Ext4* fs) : fs_(fs) {}
    Handle(Handle&& o) noexcept : fs_(o.fs_) { o.fs_ = nullptr; }
    Handle& operator=(Handle&& o) noexcept {
      if (this != &o) {
        Stop();
        fs_ = o.fs_;
        o.fs_ = nullptr;
      }
      return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { Stop(); }
    void Stop();

   private:
    Ext4* fs_ = nullptr;
  };
  sim::Task<Handle> StartHandle();
  // WritebackPages of the file under a handle (ext4_writepages), if it has
  // dirty pages.
  sim::Task<void> WritebackUnderHandle(uint32_t ino);
  // The i_rwsem of a namespace change (LockForChange) and its handle, which
  // spans the change's CPU time and the metadata reads after it.
  struct Change {
    std::vector<vfs::ExclusiveLock> locks;
    Handle handle;
  };
  sim::Task<Change> LockForChange(std::string_view a, std::string_view b);

  // ---- data (ext4_data.cc)
  sim::Task<FsResult<uint64_t>> DoRead(OpenFile* f, uint64_t offset, uint8_t* out, uint64_t len);
  sim::Task<FsResult<uint64_t>> DoWrite(OpenFile* f, uint64_t offset, std::span<const uint8_t> data,
                                        uint64_t length);
  sim::Task<void> ReadPages(Inode* in, uint64_t first, uint64_t last);
  sim::Task<Errno> DoTruncate(Inode* in, uint64_t size);
  sim::Task<FsStatus> DoFsync(Inode* in, bool datasync);
  sim::Task<FsStatus> DoDirFsync();
  // Writes back up to max_pages dirty pages of `in` (allocating delayed
  // blocks); returns the pages submitted.
  uint64_t WritebackPages(Inode* in, uint64_t max_pages);
  sim::Task<void> WaitFileWrites(uint32_t ino);
  uint32_t MapBlock(const Inode* in, uint32_t lblk, uint32_t* run = nullptr) const;
  void InsertExtent(Inode* in, uint32_t lblk, uint32_t pblk, uint32_t len);
  void FreeExtentsFrom(Inode* in, uint32_t lblk);
  void ReshapeTree(Inode* in, size_t first_changed);
  std::vector<uint32_t> ExtentBlocksFor(const Inode* in) const;
  // ---- mballoc
  uint32_t InodeGoal(const Inode* in) const;
  uint32_t AllocData(Inode* in, uint32_t lblk, uint32_t want, uint32_t* got);
  uint32_t AllocMeta(const Inode* in, uint32_t goal);
  uint32_t FindFree(uint32_t goal, uint32_t len, uint32_t minlen, uint32_t* got);
  void TakeBlocks(uint32_t start, uint32_t len);
  void FreeBlocks(uint32_t start, uint32_t len, bool metadata);
  void ReleaseUnused(uint32_t start, uint32_t len);  // preallocated, never handed out
  void DropInodePrealloc(Inode* in);
  bool TestInUse(uint32_t b) const;
  uint32_t FreeRunAt(uint32_t b, uint32_t max) const;
  uint32_t NextFree(uint32_t g, uint32_t i) const;
  uint32_t AllocInodeNumber(bool is_dir, const Inode* parent);

  // ---- journal, metadata cache, I/O (ext4_journal.cc)
  Tx& Running();
  void Dirty(uint32_t blk);
  void DirtyInode(Inode* in, bool data_change);
  void DirtyGroup(uint32_t g, bool block_bitmap, bool inode_bitmap);
  void Revoke(uint32_t blk);
  BlockPtr Materialize(uint32_t blk) const;
  sim::Task<void> ReadMeta(std::vector<uint32_t> blocks);
  void MakeResident(uint32_t blk);
  void UpdateMetaPage(uint32_t blk);
  bool MetaHeld(uint32_t blk) const;
  sim::Task<void> CommitThread();
  sim::Task<void> Commit();
  sim::Task<void> ForceCommit(uint32_t tid);
  sim::Task<void> Checkpoint(uint32_t need);
  // Log blocks in use from `tail` to the head. The space a commit may use
  // counts from the tail the journal superblock names (LogFree); the tail
  // the state allows (LogTail: the oldest transaction with blocks not home)
  // becomes it when a checkpoint writes the superblock.
  uint32_t LogUsed(uint32_t tail) const;
  uint32_t LogFree() const { return layout_.journal_blocks - 1 - LogUsed(jsb_start_); }
  uint32_t LogTail() const;
  void WriteHome(uint32_t blk);
  sim::Task<void> WriteJournalSuper();
  sim::Task<void> Flush();
  void SubmitWrite(uint32_t start, std::vector<BlockPtr> contents, IoKind kind, bool fua,
                   std::function<void()> done);
  void SubmitRead(uint32_t start, uint32_t count, IoKind kind, std::function<void()> done);
  // Requests come from a pool the Ext4 owns, so those in flight at a power
  // cut (never completed) are freed with it.
  IoReq* AllocReq();
  void FreeReq(IoReq* r);
  void OnBlockComplete(ssd::BlockRequest* req) override;
  // The block layer's plug: writes submitted at one instant wait in plug_
  // and merge with the one before when adjacent on the volume (back or
  // front merge, up to max_io, never FUA writes) — adjacent writes of
  // different files or of single metadata blocks go out as one request,
  // as blk_attempt_plug_merge makes them. Unplug dispatches them once
  // everything due at that instant ran (the submitter sleeps).
  void Unplug();
  sim::CpuBurst Cpu(sim::SimTime d);
  // The coarse clock (current_time): now, down to timestamp_granularity.
  sim::SimTime Stamp() const;
  // file_update_time: mtime and ctime move, and the inode is logged, only
  // when the coarse clock ticked since their last stamp.
  void UpdateTimes(Inode* in);
  // touch_atime under the atime mount option.
  void TouchAtime(Inode* in);
  // ext4_alloc_da_blocks: start writeback of the file's delayed blocks.
  void AllocDaBlocks(Inode* in);
  sim::Task<sim::Status> Recover();
  sim::Task<void> ResetLog(uint32_t seq);
  sim::Status Load();
  void ApplyOrphans();

  // PageCache::Owner, WritebackHost
  std::unique_ptr<vfs::CachedPage> Evict(vfs::CachedPage* p) override;
  vfs::WritebackState* FindWritebackState(uint64_t id, uint64_t* dirty_pages) override;
  sim::Task<bool> WritebackFile(uint64_t id, uint64_t max_pages) override;
  bool FlusherStop() const override { return stopping_ || dead_; }
  bool FlusherAbort() const override { return dead_; }
  sim::Task<void> AfterWritebackPass() override;

  void RegisterStats();

  Ext4Config cfg_;
  sim::EventQueue* q_;
  ssd::BlockDevice* dev_;
  Image* image_;
  sim::StatGroup stat_group_;
  std::function<double()> device_wa_;
  Layout layout_;
  uint32_t hash_seed_ = 0;
  uint64_t mounts_ = 0;
  Listener* listener_ = nullptr;
  sim::Rng rng_;

  // Allocation state: per group, the on-disk bitmaps and the in-use map
  // (on-disk bits plus blocks freed by a transaction not yet committed).
  std::vector<std::vector<uint64_t>> bbits_, busy_bits_, ibits_;
  std::vector<GroupDesc> gd_;
  uint64_t reserved_blocks_ = 0;  // delayed-allocation reservations
  uint64_t busy_blocks_ = 0;      // blocks in busy_bits_
  void DiscardAllPrealloc();
  uint32_t lg_pblk_ = 0, lg_len_ = 0;  // locality-group preallocation

  std::unordered_map<uint32_t, std::unique_ptr<Inode>> inodes_;
  uint64_t next_gen_ = 1;  // Inode::gen
  std::set<uint32_t> orphans_;
  vfs::FdTable<OpenFile> fds_;
  // What each dynamic metadata block holds: (ino, kind, index).
  struct MetaRef {
    uint32_t ino = 0;
    uint8_t kind = 0;  // 0 dir block (index = logical block), 1 extent-tree block (index into Inode::tree)
    uint32_t index = 0;
  };
  std::unordered_map<uint32_t, MetaRef> dyn_meta_;

  // Journal.
  std::unique_ptr<Tx> running_;
  uint32_t next_tid_ = 1;
  uint32_t committed_tid_ = 0;
  uint32_t committing_tid_ = 0;
  bool commit_flush_sent_ = false;  // the commit in progress flushed the cache before its commit block
  uint32_t commit_request_ = 0;
  uint32_t log_head_ = 1;  // next ring position (1 .. journal_blocks - 1)
  struct TxLog {
    uint32_t start = 0, len = 0, live = 0;
  };
  std::map<uint32_t, TxLog> tx_log_;  // committed transactions still in the log
  uint32_t jsb_sequence_ = 1, jsb_start_ = 0;  // what the journal superblock says
  struct Ckpt {
    uint32_t tid = 0;
    BlockPtr content;
    sim::SimTime committed;
    uint32_t writing_tid = 0;  // a home write of that version is in flight
  };
  std::map<uint32_t, Ckpt> ckpt_;  // committed metadata not yet written home
  // Written home since the last commit began: still on jbd2's checkpoint
  // list (cleaned by __jbd2_journal_clean_checkpoint_list at each
  // commit), whose buffer_head references keep drop_caches from freeing
  // the pages.
  std::set<uint32_t> ckpt_written_;
  bool checkpointing_ = false;

  // Cache.
  vfs::PageCache cache_;
  vfs::Writeback wb_;
  std::unordered_map<uint32_t, std::unique_ptr<MetaPage>> meta_pages_;

  // I/O.
  std::vector<std::unique_ptr<IoReq>> all_reqs_;
  IoReq* free_reqs_ = nullptr;
  std::vector<IoReq*> plug_;
  sim::MemberEvent<Ext4, &Ext4::Unplug> unplug_event_{this, sim::Priority::kIssue};
  uint64_t ios_in_flight_ = 0;
  uint64_t committing_ordered_ = 0;        // ordered data writes the commit in progress waits for
  std::set<uint32_t> committing_blocks_;   // blocks the commit in progress logs
  vfs::WaitQueue io_wq_;      // any I/O completion
  vfs::WaitQueue commit_wq_;  // a commit finished
  vfs::DaemonTimer commit_timer_;
  vfs::WaitQueue space_wq_;   // log space
  // T_LOCKED: handles open on the running transaction (t_updates), whether
  // the commit has locked it, and the waits of both sides.
  uint32_t t_updates_ = 0;
  bool t_locked_ = false;
  vfs::WaitQueue updates_wq_;  // the commit, for t_updates_ to reach 0
  vfs::WaitQueue locked_wq_;   // new handles, for the lock to end
  // The host's CPUs (null: bursts run at once), i_rwsem's lock class and
  // the CPU owners of the kernel threads (JBD2's commit, the flusher).
  sim::CpuScheduler* cpu_ = nullptr;
  std::unique_ptr<vfs::LockClass> i_rwsem_class_;
  uint16_t owner_jbd2_ = 0;
  uint16_t owner_flusher_ = 0;
  sim::ThreadGroup threads_;
  // i_rwsem, striped by inode number (bounded memory; two inodes of one
  // stripe share a lock).
  std::array<std::unique_ptr<vfs::RwLock>, 4096> locks_;
  uint64_t writeback_pages_ = 0;  // file pages under writeback
  bool dead_ = false;
  bool stopping_ = false;
  bool commit_thread_done_ = false;

  OpLatencies ops_;  // fs.op.<call>.lat
  struct Stats {
    sim::Counter commits, commit_blocks, journal_blocks, revokes, checkpoints, home_writes, jsb_writes;
    sim::Counter fsync_calls, fsync_commits, fsync_flushes, flushes;
    sim::Counter blocks_written[3], blocks_read[3];
    sim::Counter app_bytes_written, app_bytes_read;
    sim::Counter alloc_requests, alloc_goal_hits, groups_scanned, lg_prealloc, inode_prealloc;
    sim::Counter meta_misses, inode_readahead_blocks, data_read_requests;
    sim::Histogram commit_lat, fsync_lat, commit_tx_blocks;
    sim::Counter handles, handle_locked_waits;
    sim::Histogram handle_locked_wait, commit_locked;
  } stats_;
};

}  // namespace fs::ext4
