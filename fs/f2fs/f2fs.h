// F2fs: the F2FS file-system model on a simulated block device.
//
// Construction:
//   Image image(volume_bytes / 4096);                 // what is on flash
//   F2fs::Format(cfg, volume_bytes, &image);          // mkfs (untimed)
//   F2fs::Env env;  // events, device, image, stats (e.g. Root().Group("fs"))
//   auto fs = co_await F2fs::Mount(cfg, env);         // Result<unique_ptr<F2fs>>
//   ... workloads call the fs::FileSystem API from simulated threads ...
//   co_await fs->Unmount();                           // optional clean stop
// (Build the Env outside the co_await expression: GCC 12 destroys aggregate
// temporaries inside co_await arguments twice.) Destroy the F2fs only after
// Unmount() returned or after EventQueue::Clear() (a power cut): its device
// requests must not complete after it is gone.
//
// What is modelled (kernel names in parentheses; Linux 5.15 behaviour):
// - Layout and mkfs formulas (layout.h); NAT/SIT with two copies and
//   version bitmaps, NAT/SIT journals in the current-segment summaries,
//   SSA; six active logs with the kernel's temperature rules
//   (__get_segment_type_{2,4,6}); LFS, SSR (f2fs_need_SSR) and in-place
//   updates (ipu_policy, min_fsync_blocks, min_ipu_util, cold files). Log,
//   segment and SSR choices are an AllocationPolicy's (allocation_policy.h,
//   config key `allocation`).
// - Inodes with 873 usable addresses, direct/indirect/double-indirect
//   nodes, inline data (converted with an immediate data write) and inline
//   dentries, multi-level hash directories with 214-slot dentry blocks,
//   block reservation (NEW_ADDR) at write time, orphan inodes.
// - Page cache with dirty tracking, a memory limit (clean pages evicted
//   LRU), writer throttling (dirty_ratio) and a flusher thread
//   (dirty_background_ratio, dirty_expire, writeback interval): the shared
//   vfs::PageCache and vfs::Writeback (fs/vfs/page_cache.h); node pages in
//   the NodeCache (node_cache.h).
// - Checkpoint (f2fs_write_checkpoint): dirty dentry pages written with
//   cp_rwsem released until it can be taken exclusive with none dirty
//   (block_operations' retries, bounded), then, with file operations
//   stalled, all dirty node pages written, the writes a checkpoint
//   guarantees (nodes, meta, dentries, data moved by cleaning; not plain
//   file data) waited for, NAT/SIT flushed to journals or blocks, SSA
//   blocks, CP pack (built by the CheckpointWriter, checkpoint_writer.h),
//   cache flush and FUA commit block; prefree segments
//   become free and freed nids reusable; what it freed is queued for
//   discard. Triggers: fsync needing it, cleaning, sync/umount, and the
//   background checks
//   (f2fs_balance_fs_bg: excess dirty nodes/NATs or prefree segments
//   whatever the load; cp_interval unless I/O is in flight or an operation
//   of a recent request holds cp_rwsem), run by the flusher and cleaning
//   threads. The checkpoint decisions (fsync, background) are the
//   Durability mode's (durability.h, config key `durability`), which also
//   sees every metadata change at operation time.
// - fsync (f2fs_do_sync_file): data write-and-wait (including writes other
//   threads started), the checkpoint cases of need_do_checkpoint, dirty
//   dnodes written with FSYNC (and DENT) marks to the warm node log and
//   waited for with every earlier warm-node write, merged cache flush. The
//   dirty node lookup either scans all dirty node pages (kernel) or uses a
//   per-file dirty node list; its CPU cost is charged per page visited.
// - Cleaning: background thread (cost-benefit/greedy/ATGC victim policies,
//   idle-triggered, the kernel's sleep-time adaptation and
//   has_enough_invalid_blocks) and foreground (greedy) from
//   f2fs_balance_fs, run by the Cleaner (cleaner.h); valid blocks move
//   (MigrateSection) to the cold data log (ATGC log with the atgc option):
//   foreground cleaning writes them and waits, background cleaning only
//   dirties their pages (page_private_gcing; nodes dirty), so they move
//   with the next writeback, fsync or checkpoint, and the victim is free
//   after that and one more checkpoint.
// - Discard (Linux 5.15 segment.c): the checkpoint queues the freed runs
//   (add_discard_addrs, f2fs_clear_prefree_segments) in a DiscardQueue
//   (discard_queue.h: sorted, merged, punched by allocations); the discard
//   thread (issue_discard_thread, DPOLICY_BG) issues them only while the
//   file system is idle for discard (discard.idle_interval without a
//   request, no read, plain data write or flush in flight), at most
//   max_requests per round, longest first, then short ones by address;
//   it sleeps min/mid/max_interval; above urgent_util it is more eager.
//   A write to a block an issued discard still covers waits for it
//   (f2fs_wait_discard_bio). Unmount issues everything pending for up to
//   umount_timeout (DPOLICY_UMOUNT) and waits. On a device of fixed
//   placement whole freed sections are trimmed at once instead (see
//   TrimFreedSections) and pending discards do not merge.
// - Durability mode journal (F2FS-J, journal.h, f2fs_journal.cc): mkfs
//   carves a journal area out of the end of the volume; metadata changes
//   append records to per-inode lists in global epochs; the commit thread
//   (every commit_interval) and every fsync (after writing the file's data
//   and an fsync record of its size and inline data) switch the epoch,
//   wait for the data writes the records describe (ordered mode), write
//   the records and, after a cache flush, the commit block with FUA; a
//   checkpoint covers every record appended before it fixed its state and
//   frees the journal up to there; one runs when the journal's free space
//   falls to apply_free_ratio or checkpoint_interval after the last one
//   (replacing f2fs_balance_fs_bg's triggers; a full journal makes the
//   commit wait for it). Mount replays the committed records after the
//   checkpoint, in sequence (metadata only), stopping at the first block
//   out of sequence or damaged, drops a commit whose last block is
//   missing, continues the journal one lap of sequence numbers ahead and
//   checkpoints. With the journal, fsync commits it (after the file's data
//   and an fsync record) instead of writing dnodes for roll-forward.
// - Transactions (f2fs_tx.cc; FileSystem's Tx* and AtomicWrite* calls):
//   exF2FS's multi-file transactions and F2FS's single-file atomic write.
//   Running writes are held in memory (stolen to blocks no dnode names
//   under memory pressure, which cleaning moves without handing them to
//   the files: shadow GC); the commit writes the data out of place in one
//   batch, the members' nodes without fsync marks and, after a flush, a
//   master node naming the members, FSYNC-marked; roll-forward recovery
//   replays a set whose master node is durable, whole, and nothing of one
//   whose master node is not.
// - Persistence: every write hands its block object to the Image; mount
//   picks the newest valid CP pack, loads NAT/SIT/SSA, frees orphans and runs
//   roll-forward recovery of fsynced dnodes (f2fs_recover_fsync_data).
//
// Documented deviations: a page may be rewritten or truncated while its
// write is in flight (the kernel first waits for the page's writeback), so
// a checkpoint also waits for the plain data writes in flight to blocks
// invalidated since, before its commit lets them be reused; node pages are
// written only by checkpoints, fsync and foreground cleaning;
// a write to a block an issued discard covers is held back until the
// discard completes (the kernel's allocating thread waits instead);
// unmount writes no second (CP_TRIMMED) checkpoint after its discards;
// an fsync with nothing of its file left to write while a checkpoint runs
// waits for that checkpoint's commit (the kernel returns at once, though
// the checkpoint may be what wrote the file);
// roll-forward recovery drops blocks beyond the recovered i_size and leaves
// a name held by a directory alone (the fsynced file is then released);
// the dentry hash is the model's own string hash; the NAT is kept whole in
// memory (which entries and NAT blocks are cached is tracked, so cold
// lookups pay their NAT block read, but a checkpoint does not read an
// uncached NAT block before rewriting it); O_DIRECT is served through the
// page cache only when misaligned (f2fs_force_buffered_io); xattrs,
// compression, encryption and quota are not modelled.
//
// Concurrency: operations are coroutines; locks mirror the kernel's
// (cp_rwsem shared by every modifying operation and exclusive for a
// checkpoint; per-inode i_rwsem, exclusive for writes, truncates and
// namespace changes, shared for reads, not taken by fsync, which like
// f2fs_sync_file runs beside them; one cleaner at a time). Bookkeeping
// happens in synchronous sections between suspension points.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/checkpoint_writer.h"
#include "fs/f2fs/cleaner.h"
#include "fs/f2fs/discard_queue.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/journal.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/nat_table.h"
#include "fs/f2fs/node_cache.h"
#include "fs/f2fs/on_disk.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/vfs/sync_primitives.h"
#include "fs/f2fs/victim_policy.h"
#include "fs/file_system.h"
#include "fs/vfs/fd_table.h"
#include "fs/vfs/page_cache.h"
#include "fs/vfs/path.h"
#include "ssd/block_device.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/task.h"

namespace fs::f2fs {

class F2fs final : public FileSystem,
                   private ssd::BlockClient,
                   private DurabilityHost,
                   private CleanerHost,
                   private RegionLoad,
                   private vfs::PageCache::Owner,
                   private vfs::WritebackHost {
 public:
  struct Env {
    sim::EventQueue* events = nullptr;
    ssd::BlockDevice* device = nullptr;  // sector size 512 or 4096
    Image* image = nullptr;              // outlives the F2fs
    sim::StatGroup stats{nullptr, ""};   // e.g. registry.Root().Group("fs")
    // Optional: the device's write amplification (e.g. the FTL's), for the
    // end-to-end formula fs.write_amplification_end_to_end.
    std::function<double()> device_write_amplification;
    // Optional: the host's CPUs (null: every CPU burst runs at once).
    sim::CpuScheduler* cpu = nullptr;
  };

  // Why a checkpoint runs (stats and skip rules).
  enum class CpReason : uint8_t { kSync, kUmount, kFsync, kGc, kBackground, kRecovery, kJournal, kCount };

  // Observer of checkpoints (crash tests): Begin is called once the
  // checkpoint holds cp_rwsem for good, after its dentry writeback rounds
  // (the state it persists is fixed), Committed once its commit block is
  // durable.
  class Listener {
   public:
    virtual ~Listener() = default;
    virtual void OnCheckpointBegin(uint64_t cp_ver) {}
    virtual void OnCheckpointCommitted(uint64_t cp_ver) {}
    // Durability mode journal: the running epoch closed; a replay that
    // ends with its commit restores the state of this instant. `key`: the
    // first record sequence number of the next epoch.
    virtual void OnJournalSwitch(uint64_t key) {}
  };

  // mkfs.f2fs: writes a fresh volume of `device_bytes` into `image`
  // (durable, untimed). InvalidInput if the device is too small or the
  // config is invalid.
  // `device`: the flash layout behind the volume, for an allocation policy
  // with regions (ParaFS), which places every region's logs in its own
  // sections; null formats as without regions.
  static sim::Status Format(const F2fsConfig& cfg, uint64_t device_bytes, Image* image,
                            const ssd::DeviceLayout* device = nullptr);
  // With an allocation policy of regions on `device`: the segment each
  // persistent log of each region starts in (mkfs; r * kNumPersistentLogs
  // + LogType), the i-th log of region r in the i-th section of r; empty
  // with one region. InvalidInput when the policy refuses the device or a
  // region is too small.
  static sim::Result<std::vector<SegNo>> RegionLogSegments(const F2fsConfig& cfg, const Layout& layout,
                                                           const ssd::DeviceLayout& device);

  // Mounts the volume in env.image: reads the newest valid checkpoint and
  // the NAT/SIT/SSA through the device, frees orphan inodes, runs
  // roll-forward recovery (then a checkpoint if anything was recovered) and
  // starts the background threads. InvalidInput if no valid checkpoint.
  static sim::Task<sim::Result<std::unique_ptr<F2fs>>> Mount(const F2fsConfig& cfg, Env env);

  ~F2fs() override;
  F2fs(const F2fs&) = delete;
  F2fs& operator=(const F2fs&) = delete;

  // ---- FileSystem.
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
  // Names in the directory (without "." and ".."), in on-disk order.
  sim::Task<FsResult<std::vector<std::string>>> Readdir(std::string_view path) override;
  // sync(2): writes back all dirty data, waits for every data write in
  // flight (also those the flusher started), then a checkpoint.
  sim::Task<FsStatus> Sync() override;

  // ---- Extras.
  // ---- Transactions (FileSystem's contract, file_system.h). Every write
  // of a running transaction is held in memory (TxFile) and the commit
  // makes it durable at once: with the members' data written out of place
  // in one batch, their node pages without fsync marks, and after a flush
  // a master node naming the members, FSYNC-marked, which roll-forward
  // recovery needs to replay any of it; or, when a member needs one (a file whose
  // dentry no checkpoint has, need_do_checkpoint), a checkpoint. Refused
  // (EOPNOTSUPP) with the journal durability mode.
  sim::Task<FsResult<uint64_t>> TxAdd(uint64_t key, Fd fd) override;
  sim::Task<FsStatus> TxStart(uint64_t key) override;
  sim::Task<FsStatus> TxCommit(uint64_t key) override;
  sim::Task<FsStatus> TxEnd(uint64_t key) override;
  sim::Task<FsStatus> AtomicWriteStart(Fd fd) override;
  sim::Task<FsStatus> AtomicWriteCommit(Fd fd) override;
  sim::Task<FsStatus> AtomicWriteAbort(Fd fd) override;

  // Clean unmount: stops the background threads, writes back everything
  // and writes an umount checkpoint. No call may follow.
  sim::Task<FsStatus> Unmount();
  // Runs a checkpoint now (F2FS_IOC_WRITE_CHECKPOINT).
  sim::Task<void> WriteCheckpointNow() { return Checkpoint(CpReason::kSync); }
  // Runs one cleaning round (F2FS_IOC_GARBAGE_COLLECT); returns the number
  // of victim sections cleaned (0: no victim).
  sim::Task<uint32_t> GarbageCollect(bool foreground) { return cleaner_->Gc(foreground, /*from_thread=*/false); }
  // echo 3 > drop_caches: drops every clean, unused page and every clean
  // NAT cache entry (FileSystem::DropCaches). Always ok.
  FsStatus DropCaches() override;
  // A checkpoint is running from its apply (journal mode) or block
  // operations to its commit; skipped checkpoints do not count.
  CheckpointActivity checkpoint_activity() const override { return {cp_begun_, cp_active_}; }
  // data: data; metadata: node, dentry and meta (SIT/NAT/SSA) blocks;
  // journal: F2FS-J's journal; cleaning: GC moves; checkpoint: the pack.
  WritesByOrigin writes_by_origin() const override;
  // fsck: verifies NAT <-> nodes, SIT counts <-> valid blocks, SSA <->
  // owners, no double allocation, directory structure, link counts and
  // space accounting, on the current state (cached pages win over flash).
  // Synchronous; call between operations.
  sim::Status Check() const;
  // Power cut: from now on nothing is scheduled or woken; the caller clears
  // the event queue and destroys this object (and the threads calling it).
  void PowerCut();
  void set_listener(Listener* l) { listener_ = l; }

  // ---- Introspection.
  const Layout& layout() const { return layout_; }
  const F2fsConfig& config() const { return cfg_; }
  uint64_t checkpoint_version() const { return cp_ver_; }
  // Version of the checkpoint the mount loaded (before any recovery checkpoint).
  uint64_t mounted_checkpoint_version() const { return mounted_cp_ver_; }
  // Durability mode journal: the key (Listener::OnJournalSwitch) of the
  // last commit the mount replayed, 0 if the checkpoint's state stood.
  uint64_t journal_recovered_key() const { return journal_recovered_key_; }
  uint64_t checkpoints() const { return stats_.cp_count.value(); }
  const SegmentManager& segments() const { return *sm_; }
  const NatTable& nat() const { return *nat_; }
  uint64_t dirty_node_pages() const { return node_cache_.dirty().size(); }
  uint64_t dirty_data_pages() const { return wb_.dirty_pages(); }
  uint64_t cached_pages() const { return cache_.pages(); }
  uint64_t valid_block_count() const { return valid_block_count_; }
  uint64_t free_user_blocks() const {
    return layout_.user_block_count > valid_block_count_ ? layout_.user_block_count - valid_block_count_ : 0;
  }
  uint64_t blocks_written() const;
  uint64_t app_blocks_written() const { return stats_.app_bytes_written.value() / kBlockSize; }
  uint64_t recovered_dnodes() const { return stats_.recovered_dnodes.value(); }
  uint64_t tx_commits() const { return stats_.tx_commits.value(); }
  uint64_t tx_stolen_pages() const { return stats_.tx_stolen.value(); }
  uint64_t tx_stolen_moved() const { return stats_.tx_stolen_moved.value(); }
  uint64_t tx_stolen_blocks() const { return stolen_owner_.size(); }
  uint64_t tx_commit_checkpoints() const { return stats_.tx_commit_checkpoints.value(); }
  // Committed transactions roll-forward recovery replayed at mount.
  uint64_t tx_recovered() const { return stats_.tx_recovered.value(); }
  const sim::Histogram& tx_commit_latency() const { return stats_.tx_commit_lat; }
  uint64_t gc_moved_blocks() const;
  uint64_t gc_moved_bg_blocks() const { return stats_.gc_moved_bg.value(); }
  uint64_t ipu_blocks() const { return stats_.ipu_blocks.value(); }
  uint64_t ssr_allocations() const { return stats_.ssr_blocks.value(); }
  const DiscardQueue& discards() const { return *dq_; }
  const sim::Histogram& fsync_latency() const { return stats_.fsync_total; }
  const sim::Histogram& fsync_nodes_visited() const { return stats_.fsync_visited; }

 private:
  enum class Op : uint8_t {
    kOpen, kClose, kRead, kWrite, kPread, kPwrite, kFtruncate, kTruncate, kFsync, kFdatasync, kFstat,
    kStat, kUnlink, kMkdir, kRmdir, kRename, kReaddir, kSync, kLink, kCount
  };
  // Block I/O categories for statistics.
  enum class Io : uint8_t { kData, kDentry, kNode, kMeta, kCp, kGcData, kGcNode, kJournal, kCount };

  // A member file's part of a transaction (f2fs_tx.cc): while the set's
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

  // ---- In-memory inodes (f2fs_inode_info).
  struct Inode {
    Inode(sim::EventQueue* q, vfs::LockClass* i_rwsem) : lock(q, i_rwsem) {}
    Nid ino;
    NodePage* ipage = nullptr;  // pinned while the Inode exists
    vfs::RwLock lock;                // i_rwsem
    uint32_t refs = 0;          // open files + operations in progress
    bool unlinked = false;      // no link left; freed at the last reference (orphan)
    bool freed = false;         // blocks and nodes released; deleted at the last reference
    std::map<uint64_t, std::unique_ptr<DataPage>> pages;
    std::set<uint64_t> dirty_index;  // indices of dirty pages
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
    // Transactions (f2fs_tx.cc): membership and the running writes; while
    // a commit applies them, every data write of the file goes out of
    // place (tx_commit) and the blocks it replaces are collected in
    // tx_revoke, invalidated once the commit is durable.
    std::unique_ptr<TxFile> tx;
    bool tx_commit = false;
    std::vector<BlockAddr>* tx_revoke = nullptr;
  };

  struct OpenFile {
    Inode* inode = nullptr;
    uint64_t pos = 0;
    uint32_t flags = 0;
  };

  // ---- I/O.
  struct IoBatch {
    explicit IoBatch(sim::EventQueue* q) : done(q) {}
    uint32_t pending = 0;
    bool waiting = false;
    sim::Completion<bool> done;
  };
  struct IoReq : ssd::BlockRequest {
    Io kind = Io::kData;
    IoBatch* batch = nullptr;
    uint64_t flush_marker = 0;
    uint64_t trim_first_id = 0;  // a trim: the Image's write id of its first block
    bool discard_cmd = false;    // a trim: a DiscardQueue command (Done at completion)
    std::vector<BlockPtr> held;  // a write held for an issued discard: its contents
    std::vector<uint64_t> write_ids;
    std::vector<Page*> pages;
    std::vector<uint32_t> inos;       // per block: file whose data it is (0: none)
    std::vector<uint64_t> node_seqs;  // warm-node writes: their sequence numbers
    uint64_t plain_seq = 0;           // plain data writes: the key in plain_writes_
    uint64_t ordered_seq = 0;         // with a journal, data writes: the key in ordered_writes_
    IoReq* next_free = nullptr;
  };
  // Merges contiguous block writes into requests of at most max_io bytes.
  class WriteBatcher {
   public:
    WriteBatcher(F2fs* fs, Io kind, IoBatch* batch) : fs_(fs), kind_(kind), batch_(batch) {}
    ~WriteBatcher() { Flush(); }
    // `ino`: the file whose data block this is; `node_seq`: a warm-node
    // write's sequence number (0: neither).
    void Add(BlockAddr a, BlockPtr content, Page* page, Nid ino = kNullNid, uint64_t node_seq = 0);
    void Flush();
    void set_kind(Io k) {
      if (k != kind_) Flush();
      kind_ = k;
    }
    // Blocks added from now on are cleaning's (a page dirtied by background
    // cleaning): counted as kGcData until set back.
    void set_gc(bool gc) {
      if (gc != gc_) Flush();
      gc_ = gc;
    }

   private:
    F2fs* fs_;
    Io kind_;
    bool gc_ = false;
    IoBatch* batch_;
    BlockAddr start_;
    std::vector<BlockPtr> contents_;
    std::vector<Page*> pages_;
    std::vector<uint32_t> inos_;
    std::vector<uint64_t> seqs_;
  };

  struct DnodeRef {
    NodePage* np = nullptr;  // null: no dnode (hole) or error
    uint32_t ofs = 0;
    Errno err = Errno::kOk;
  };
  class InodeRef;
  struct ParentRef;
  struct DentryLoc {
    Nid ino;
    FileType type = FileType::kUnknown;
    int64_t block = -1;  // dentry block index, -1 = inline
    int slot = -1;
  };
  // Holds a reference on an Inode for the duration of an operation.
  class InodeRef {
   public:
    InodeRef() = default;
    InodeRef(F2fs* fs, Inode* i) : fs_(fs), i_(i) {
      if (i_) ++i_->refs;
    }
    InodeRef(InodeRef&& o) noexcept : fs_(o.fs_), i_(o.i_) { o.i_ = nullptr; }
    InodeRef& operator=(InodeRef&& o) noexcept;
    ~InodeRef();
    Inode* get() const { return i_; }
    Inode* operator->() const { return i_; }
    explicit operator bool() const { return i_ != nullptr; }

   private:
    F2fs* fs_ = nullptr;
    Inode* i_ = nullptr;
  };
  struct ParentRef {
    InodeRef dir;
    std::string name;           // "" for the root
    Errno err = Errno::kOk;
    bool dir_required = false;  // the path ended with '/' (or "/.")
  };
  // Records one operation's latency (and its syscall CPU cost) on scope exit.
  class OpScope {
   public:
    OpScope(F2fs* fs, Op op) : fs_(fs), op_(op), start_(fs->q_->now()) { fs->last_op_time_ = start_; }
    ~OpScope();

   private:
    F2fs* fs_;
    Op op_;
    sim::SimTime start_;
  };

  struct Stats {
    std::array<sim::Histogram, static_cast<int>(Op::kCount)> op_lat;
    sim::Histogram fsync_total, fsync_data, fsync_node, fsync_flush, fsync_cp, fsync_visited;
    sim::Counter fsync_nodes_visited, fsync_nodes_written, fsync_checkpoints, fsync_calls;
    sim::Counter cp_count;
    std::array<sim::Counter, static_cast<int>(CpReason::kCount)> cp_by_reason;
    sim::Histogram cp_duration, cp_stall;
    sim::Counter cp_stall_ns, cp_blocks;
    std::array<sim::Counter, static_cast<int>(Io::kCount)> blocks_written, blocks_read;
    sim::Counter flushes, fua_writes, discards, discard_blocks, section_trims, pad_blocks, unpadded_page_ends,
        logs_moved_at_mount, nat_reads;
    DiscardStats discard;
    sim::Counter app_bytes_written, app_bytes_read, direct_bytes_written, direct_bytes_read;
    sim::Counter ipu_blocks, opu_blocks, ssr_blocks;
    CleanerStats cleaner;
    sim::Counter gc_moved_bg, gc_moved_fg;
    sim::Counter recovered_inodes, recovered_dnodes, recovered_dentries, orphans_freed;
    sim::Counter evicted_pages, throttled_writes;
    // Durability mode journal.
    sim::Counter j_commits, j_blocks, j_space_checkpoints, j_replayed, j_replay_skipped,
        j_replay_dropped, j_corrupt_blocks;
    sim::Histogram j_commit_lat, j_commit_records;
    sim::Counter j_fsync_commits;
    sim::Counter j_applies, j_apply_blocks, j_apply_held;
    sim::Histogram j_apply_lat;
    // Transactions.
    sim::Counter tx_commits, tx_commit_checkpoints, tx_aborts, tx_pages, tx_master_nodes, tx_recovered, tx_stolen,
        tx_stolen_moved;
    sim::Histogram tx_commit_lat;
  };

  F2fs(const F2fsConfig& cfg, const Layout& layout, Env env);
  void RegisterStats();
  static bool IsRegular(const NodeBlock& b) { return b.inode && !b.inode->is_dir; }

  // ---- CPU and time.
  sim::Task<void> Cpu(sim::SimTime d);

  // ---- DurabilityHost.
  sim::SimTime Now() const override { return q_->now(); }
  sim::SimTime LastRequestTime() const override { return last_op_time_; }
  // is_inflight_io: reads, plain data writes (kData: not checkpoint-
  // guaranteed, F2FS_WB_DATA) or a cache flush queued or in flight
  // (queued_flush), or, with `count_queued_discards` (false for the
  // discard thread itself), trims issued and not completed
  // (queued_discard; pending discard commands do not count). The kernel also counts
  // direct I/O; the model has none (O_DIRECT goes through the page cache).
  // The one helper for every background thread's "I/O in flight" check.
  bool InflightIo(bool count_queued_discards) const override;
  bool CheckpointLockHeld() const override { return !cp_lock_.idle(); }
  uint64_t DirtyNodePages() const override { return node_cache_.dirty().size(); }
  bool AnyIoInFlight() const override { return ios_in_flight_ > 0; }
  bool HasUncheckpointedChanges() const override { return FsDirty(); }

  // ---- Device I/O (f2fs_io.cc).
  IoReq* AllocReq();
  void FreeReq(IoReq* r);
  void SubmitWrite(BlockAddr start, std::vector<BlockPtr>& contents, std::vector<Page*>& pages, Io kind,
                   IoBatch* batch, bool fua, const std::vector<uint32_t>* inos = nullptr,
                   const std::vector<uint64_t>* node_seqs = nullptr);
  // Waits until every warm-node write submitted up to now has completed
  // (f2fs_wait_on_node_pages_writeback): the roll-forward chain has no hole.
  sim::Task<void> WaitWarmNodeWrites();
  void SubmitRead(BlockAddr start, uint32_t count, Io kind, IoBatch* batch);
  // `discard_cmd`: the trim of a DiscardQueue command (reported Done when
  // it completes).
  void SubmitTrim(BlockAddr start, uint32_t count, bool discard_cmd = false);
  // Sends a write to the Image and the device.
  void SendWrite(IoReq* r, const std::vector<BlockPtr>& contents);
  // Sends the held writes no issued discard covers any more (in order).
  void ReleaseHeldWrites();
  // RegionLoad (with regions): blocks allocated minus writes completed, and
  // reads in flight, per region.
  uint64_t ReadBytes(uint32_t region) const override { return region_reads_[region] * kBlockSize; }
  uint64_t WriteBytes(uint32_t region) const override {
    const uint64_t a = sm_->allocated_blocks(region), d = region_writes_done_[region];
    return a > d ? (a - d) * kBlockSize : 0;
  }
  // Adds `delta` per block of [start, start + n) in the main area to
  // counts[region of the block].
  void CountByRegion(BlockAddr start, uint32_t n, int64_t delta, std::vector<uint64_t>& counts) const;
  // On a device that programs whole flash pages only (fixed placement, a
  // flash page of several 4 KiB blocks): a batch of main-area blocks
  // [start, start + contents.size()) that ends inside a page its log has
  // not allocated further is padded to the page end (SegmentManager::
  // PadStripe; zero-filled blocks, never valid, counted in
  // fs.io.pad_blocks), and a node written last, whose footer chained to
  // the padded slot, is re-chained to where its log continues.
  // Block `a` is in the main area and not the last block of its flash
  // page (a device whose pages hold several blocks).
  bool EndsInsideFlashPage(BlockAddr a) const {
    return blocks_per_page_ > 1 && layout_.InMain(a) && (a.v + 1 - layout_.main_blkaddr) % blocks_per_page_ != 0;
  }
  void PadToFlashPage(BlockAddr start, std::vector<BlockPtr>& contents, std::vector<Page*>& pages,
                      std::vector<uint32_t>& inos, std::vector<uint64_t>& seqs);
  // On a device of fixed placement (DeviceLayout::fixed: a flash block is
  // erased only when trimmed whole, and must be erased before it is
  // written again): trims every section of `freed` (CommitCheckpoint's
  // ranges) that is now free, whole, at once (not I/O-aware), drops those
  // ranges from `freed` and any pending discard from those sections.
  void TrimFreedSections(std::vector<SegmentManager::DiscardRange>* freed);
  // At mount on such a device: trims every free section (a crash may have
  // lost the trims of the sections the last checkpoint freed).
  void TrimAllFreeSections();
  // At mount after roll-forward recovery (or none), on such a device: free
  // sections may have been programmed after the checkpoint (by a session
  // that crashed), so they are trimmed; and unless the checkpoint was
  // written by umount (nothing followed it), a log whose flash block the
  // device programmed past the log's position (its write pointer,
  // FixedPlacement::WrittenPages; every log when the device does not say,
  // or with `all`: recovery adopted blocks) moves to a fresh section — as
  // zoned F2FS does when a write pointer disagrees
  // (f2fs_fix_curseg_write_pointer). InvalidInput when too few sections
  // are free for the moves (a nearly full volume after a crash).
  sim::Status MoveLogsPastUncheckpointedWrites(bool all);
  // Reads `addrs` (merging contiguous runs) and waits.
  sim::Task<void> ReadBlocks(const std::vector<BlockAddr>& addrs, Io kind);
  sim::Task<void> ReadBlock(BlockAddr a, Io kind);
  sim::Task<void> WaitBatch(IoBatch& b);
  sim::Task<void> IssueFlush();  // merged cache flush (flush_merge)
  sim::Task<void> WaitAllWrites();
  // Waits until every plain data write submitted up to now has completed,
  // whoever submitted it (sync_inodes_sb waiting on pages under writeback).
  sim::Task<void> WaitPlainWrites();
  // With a journal: waits until the data block of every DATA_WRITE record
  // below `key` is submitted, then until every file-data write (plain or
  // cleaning's) submitted up to then has completed (ordered mode).
  sim::Task<void> WaitOrderedWrites(uint64_t key);
  // The writes a checkpoint guarantees (f2fs_is_cp_guaranteed): node, meta
  // and checkpoint blocks, directory data (dentries) and data moved by
  // cleaning; not plain file data, which only fsync makes durable.
  static bool CpGuaranteed(Io kind) { return kind != Io::kData; }
  // Waits until every CpGuaranteed write in flight now has completed, and
  // every plain data write in flight to a block no longer valid (the page
  // was rewritten elsewhere or truncated since; see DoCheckpoint).
  sim::Task<void> WaitCheckpointWrites();
  void OnBlockComplete(ssd::BlockRequest* req) override;

  // ---- Page cache (f2fs_data.cc).
  // vfs::PageCache::Owner: unlinks an evicted page from its inode or the node cache.
  std::unique_ptr<vfs::CachedPage> Evict(vfs::CachedPage* p) override;
  DataPage* FindDataPage(Inode* inode, uint64_t index);
  DataPage* NewDataPage(Inode* inode, uint64_t index);
  void DropDataPage(Inode* inode, uint64_t index);
  void SetDataPageDirty(Inode* inode, DataPage* p);
  void ClearDataPageDirty(Inode* inode, DataPage* p);
  DataBlock& MutBytes(DataPage* p);
  DentryBlock& MutDents(DataPage* p);
  sim::Task<void> BalanceDirtyPages();
  // Writes back up to `max_pages` dirty pages of `inode` in index order
  // (f2fs_write_cache_pages); with `wait`, waits for their completion.
  sim::Task<void> WritebackInode(Inode* inode, uint64_t max_pages, bool wait, bool from_cp = false);
  // Allocates/locates the page's block (IPU or OPU) and queues its write.
  // `sync`: a write someone waits for (fsync, sync, cleaning: REQ_SYNC),
  // not background writeback (the ipu_policy bit async).
  sim::Task<Errno> WriteDataPage(Inode* inode, DataPage* p, bool hot, bool sync, WriteBatcher& wb);
  // The log of a data page of `inode` (the allocation policy's choice).
  LogType DataLogType(const Inode* inode, bool hot, bool gc) const;
  // check_inplace_update_policy (and cold files): `sync` as WriteDataPage.
  bool ShouldIpu(const Inode* inode, bool sync) const;
  sim::Task<void> FlusherThread();
  // ---- vfs::WritebackHost.
  vfs::WritebackState* FindWritebackState(uint64_t ino, uint64_t* dirty_pages) override;
  sim::Task<bool> WritebackFile(uint64_t ino, uint64_t max_pages) override;
  bool FlusherStop() const override { return stopping_ || dead_; }
  bool FlusherAbort() const override { return dead_; }
  sim::Task<void> AfterWritebackPass() override { return BalanceFsBg(); }
  // Reads pages [first, last] of a regular file (read-ahead extends `last`).
  // With `pinned`, the pages of [first, last] are returned pinned (the
  // caller unpins them), so read-ahead cannot evict them before use.
  sim::Task<Errno> ReadPages(Inode* inode, uint64_t first, uint64_t last,
                             std::vector<DataPage*>* pinned = nullptr);
  // Reads up to `len` bytes into `dst`; `dst` null: without handing them back.
  sim::Task<Errno> DoRead(Inode* inode, uint64_t offset, uint8_t* dst, uint64_t len, uint64_t* done);
  // `in_commit`: a transaction's commit applies its writes (cp_rwsem is
  // held by the caller; the bytes were counted and copied when written).
  sim::Task<Errno> DoWrite(Inode* inode, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
                           uint64_t* done, bool in_commit = false);
  // O_DIRECT (Linux 5.15 f2fs_direct_IO): whether a request goes direct —
  // 0: yes (offset and length 4 KiB-aligned, not inline), 1: buffered
  // instead (aligned to 512 bytes only, or an unaligned write in LFS mode:
  // f2fs_force_buffered_io / check_direct_IO), -1: EINVAL.
  int DirectIoMode(const Inode* inode, uint64_t offset, uint64_t length, bool write) const;
  // Writes back and waits for the dirty cached pages of [first, last]
  // (filemap_write_and_wait_range); with `drop`, then drops them from the
  // cache (the invalidation after a direct write).
  sim::Task<void> SyncCachedRange(Inode* inode, uint64_t first, uint64_t last, bool drop, bool direct);
  sim::Task<Errno> DoDirectWrite(Inode* inode, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
                                 uint64_t* done);
  sim::Task<Errno> DoDirectRead(Inode* inode, uint64_t offset, std::span<uint8_t> out, uint64_t* done);
  sim::Task<Errno> ConvertInlineData(Inode* inode);
  sim::Task<Errno> DoTruncate(Inode* inode, uint64_t size, bool in_commit = false);
  // Reserves a block (NEW_ADDR) for page `index` if it has none.
  sim::Task<Errno> ReserveBlock(Inode* inode, uint64_t index);

  // ---- Nodes (f2fs_node.cc).
  NodePage* FindNode(Nid nid) { return node_cache_.Find(nid); }
  sim::Task<NodePage*> LoadNode(Nid nid);  // cache or device; null if the NAT has no address
  NodePage* InsertNode(Nid nid, std::shared_ptr<NodeBlock> blk) { return node_cache_.Insert(nid, std::move(blk)); }
  static NodeBlock& MutNode(NodePage* np) { return NodeCache::Mut(np); }
  void SetNodeDirty(NodePage* np, Inode* owner) {
    if (journal_) np->dirty_seq = journal_->head_position().record_seq;
    node_cache_.SetDirty(np, owner ? &owner->dirty_nodes : nullptr);
  }
  void ClearNodeDirty(NodePage* np) { node_cache_.ClearDirty(np, DirtyListOf(np)); }
  // The dirty list `np` is on (its owner's), or null.
  DirtyNodeList* DirtyListOf(const NodePage* np);
  // Takes the node page out of the node cache (clean) and returns it.
  std::unique_ptr<NodePage> UnlinkNodePage(NodePage* np) { return node_cache_.Unlink(np, DirtyListOf(np)); }
  void RemoveNodePage(NodePage* np) { cache_.Detach(UnlinkNodePage(np)); }
  Inode* OwnerOf(const NodePage* np);
  // New node of inode `inode` with node offset `ofs`: nid allocated (NEW_ADDR), page dirty.
  NodePage* NewNode(Inode* inode, NodeKind kind, uint32_t ofs, Errno* err);
  void FreeNode(NodePage* np);
  void FreeNodeByNid(Nid nid, BlockAddr addr);
  bool TryGetDnodeCached(Inode* inode, uint64_t index, DnodeRef* out);
  sim::Task<DnodeRef> GetDnode(Inode* inode, uint64_t index, bool alloc);
  LogType NodeLogType(const NodePage* np) const {
    return alloc_->NodeLog(NodePlacement{np->blk->IsDnode(), np->blk->footer.cold});
  }
  // Queues a node write (__write_node_page). marks: fsync/dent footer bits.
  void WriteNodePage(NodePage* np, bool fsync_mark, bool dent_mark, WriteBatcher& wb);
  // Frees data blocks >= `from` and the nodes that only covered them.
  sim::Task<Errno> TruncateBlocks(Inode* inode, uint64_t from);
  sim::Task<bool> TruncateSubtree(Inode* inode, Nid nid, int depth, uint64_t first, uint64_t from);
  void TruncateDnodeRange(Inode* inode, NodePage* np, uint32_t from_slot);
  void ReleaseDataAddr(Inode* inode, NodePage* np, uint32_t slot);
  bool NeedSsr() const { return alloc_->NeedSsr(*sm_, SpacePressure{node_cache_.dirty().size(), dirty_dentry_pages_}); }
  bool HasNotEnoughFreeSecs(uint32_t freed, uint32_t needed) const;
  bool IncValidBlocks(uint64_t n);
  void DecValidBlocks(uint64_t n);

  // ---- Inodes and namespace (f2fs_dir.cc).
  Inode* FindInode(Nid ino);
  sim::Task<Inode*> GetInode(Nid ino);
  void MaybeEvictInode(Inode* inode);
  const InodeFields& I(const Inode* inode) const { return *inode->ipage->blk->inode; }
  InodeFields& MutI(Inode* inode);
  NodeBlock& MutInodeBlock(Inode* inode);
  sim::Task<ParentRef> LookupParent(std::string_view path);
  sim::Task<FsResult<Nid>> LookupPath(std::string_view path);
  sim::Task<std::optional<DentryLoc>> DirLookup(Inode* dir, std::string_view name);
  sim::Task<DataPage*> GetDentryPage(Inode* dir, uint64_t index, bool create, Errno* err);
  sim::Task<Errno> AddLink(Inode* dir, std::string_view name, Nid ino, FileType type);
  sim::Task<Errno> RemoveLink(Inode* dir, const DentryLoc& loc);
  sim::Task<Errno> SetLink(Inode* dir, const DentryLoc& loc, Nid ino, FileType type);
  sim::Task<Errno> ConvertInlineDir(Inode* dir);
  // `want`: the inode number to take (journal replay); null: the next free.
  sim::Task<FsResult<Inode*>> NewInode(Inode* dir, std::string_view name, bool is_dir, Nid want = kNullNid);
  sim::Task<Errno> DropLink(Inode* inode);  // links--; frees or orphans at zero
  sim::Task<void> FreeInode(Inode* inode);
  sim::Task<void> ReleaseInode(Inode* inode);  // drops the last reference of an unlinked inode
  sim::Task<bool> DirEmpty(Inode* dir);
  sim::Task<std::vector<std::pair<std::string, Dentry>>> ListDir(Inode* dir);
  void TouchDir(Inode* dir);
  FsResult<OpenFile*> GetFd(Fd fd);
  sim::Task<FsStatus> DoFsync(Fd fd, bool datasync, Op op);
  sim::Task<FsResult<uint64_t>> DoPwrite(Fd fd, int64_t offset, std::span<const uint8_t> data, uint64_t length,
                                         Op op);
  // `discard` > 0 (out empty): read that many bytes without handing them back.
  sim::Task<FsResult<uint64_t>> DoPread(Fd fd, int64_t offset, std::span<uint8_t> out, Op op, uint64_t discard = 0);
  FileStat StatOf(const Inode* inode) const;
  sim::Task<vfs::SharedLock> LockOp();  // f2fs_lock_op (cp_rwsem shared), measuring stalls
  sim::Task<void> BalanceFs();     // f2fs_balance_fs: foreground GC when space is short

  // ---- Transactions (f2fs_tx.cc).
  // A transaction set: members in the order added (exF2FS's list is
  // FILO; the commit orders nothing by it).
  struct TxSet {
    uint64_t key = 0;
    bool single = false;  // a single-file atomic write (no key for the user)
    bool running = false;
    bool committing = false;
    std::vector<InodeRef> members;
  };
  // The set named by `key`, or null.
  TxSet* FindTxSet(uint64_t key);
  // The checks every transaction call makes: transactions available, the
  // descriptor open for writing on a regular file.
  Errno TxUsable() const;
  FsResult<Inode*> TxFileOf(Fd fd);
  // The single-file atomic write set of `fd` (syscall cost counted): EINVAL
  // if it has none, EBUSY while it commits or aborts.
  sim::Task<FsResult<TxSet*>> SingleTxSetOf(Fd fd);
  // The multi-file set `key` (syscall cost counted): ENOENT if there is none
  // (or it is a single-file atomic write's), EBUSY while it commits or ends.
  sim::Task<FsResult<TxSet*>> MultiTxSetOf(uint64_t key);
  sim::Task<Errno> TxAddInode(TxSet* set, Inode* in);
  sim::Task<Errno> TxStartSet(TxSet* set);
  // The commit (exF2FS f2fs_ioc_commit_atomic_file_set; for a single file
  // f2fs_ioc_commit_atomic_write); see f2fs_tx.cc.
  sim::Task<Errno> TxCommitSet(TxSet* set);
  // Drops the running writes of every member (abort).
  sim::Task<void> TxAbortSet(TxSet* set);
  void TxRemoveSet(uint64_t key);
  // Pages held in memory by running transactions.
  uint64_t TxHeldPages() const;
  // Stealing: writes every page `in`'s transaction holds in memory to new
  // blocks (one batch, waited for); they stay out of the file's dnodes
  // until the commit.
  sim::Task<void> StealPages(Inode* in);
  // A stolen block no longer needed (rewritten, truncated, aborted).
  void ReleaseStolen(BlockAddr a);
  // The content of stolen page `idx` of `in` (read from its block).
  sim::Task<std::shared_ptr<DataBlock>> ReadStolen(Inode* in, uint64_t idx);
  // Shadow GC: moves stolen block `a` (owner `ino`) to the cleaning log;
  // false if it is no longer stolen.
  bool MoveStolen(BlockAddr a, WriteBatcher& wb);
  // At commit (cp_rwsem held): the file's dnodes take its stolen blocks;
  // the blocks they replace go to `revoke`.
  sim::Task<Errno> TxTakeStolen(Inode* in, std::vector<BlockAddr>* revoke);
  // Reads, writes and truncates of a member of a running transaction.
  sim::Task<Errno> TxRead(Inode* in, uint64_t offset, std::span<uint8_t> out, uint64_t* done);
  sim::Task<Errno> TxWrite(Inode* in, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
                           uint64_t* done);
  sim::Task<Errno> TxTruncate(Inode* in, uint64_t size);
  static bool TxRunning(const Inode* in) { return in->tx && in->tx->running; }
  void RegisterTxStats();
  // Writes the master node: the member list, FSYNC-marked.
  void WriteMasterNode(const std::vector<Nid>& members, WriteBatcher& wb);

  // ---- fsync (f2fs_fsync.cc).
  sim::Task<Errno> SyncFile(Inode* inode, bool datasync);
  // need_do_checkpoint, decided by the durability mode.
  bool NeedDoCheckpoint(Inode* inode);
  bool NeedDentryMark(Nid ino) const;
  bool NeedInodeBlockUpdate(Nid ino) const;
  // Writes the file's dirty dnodes with fsync marks; returns nodes written.
  sim::Task<uint32_t> FsyncNodePages(Inode* inode, IoBatch* batch);

  // ---- Checkpoint (f2fs_checkpoint.cc).
  sim::Task<void> Checkpoint(CpReason reason);
  sim::Task<void> DoCheckpoint(CpReason reason);
  // Durability mode journal, apply: committed — before a checkpoint takes
  // cp_rwsem: write the dirty node pages no uncommitted record has touched,
  // with operations going on.
  sim::Task<void> ApplyCommitted();
  // Writes back the dirty dentry pages of every directory (without taking
  // cp_rwsem: a checkpoint calls it with the lock released or held).
  sim::Task<void> SyncDirtyDirs();
  bool FsDirty() const;
  // f2fs_balance_fs_bg. `after_commit`: called by the journal's commit
  // thread right after a commit.
  sim::Task<void> BalanceFsBg(bool after_commit = false);
  // Durability mode journal with apply: committed.
  bool ApplyCommittedMode() const;

  // ---- Discard (f2fs_checkpoint.cc).
  sim::Task<void> DiscardThread();  // issue_discard_thread
  // The background policy now (__init_discard_policy(DPOLICY_BG)) and its
  // sleep with nothing to issue.
  DiscardQueue::Policy BackgroundDiscardPolicy(sim::SimTime* max_interval) const;
  bool IdleForDiscard() const;          // is_idle(DISCARD_TIME)
  sim::SimTime DiscardIdleWait() const; // f2fs_time_to_wait(DISCARD_TIME)
  void WakeDiscardThread();             // wake_up_discard_thread(sbi, false)
  void SubmitDiscard(BlockAddr start, uint32_t count);
  sim::Task<void> WaitIssuedDiscards();
  sim::Task<void> IssueDiscardsAtUmount();  // f2fs_issue_discard_timeout
  sim::Task<void> WriteMetaBlocks(std::vector<std::pair<BlockAddr, BlockPtr>>& blocks, Io kind, IoBatch* batch);

  // ---- Cleaning (f2fs_gc.cc).
  // ---- CleanerHost.
  bool Dead() const override { return dead_; }
  bool Stopping() const override { return stopping_; }
  bool HasNotEnoughFreeSecs(uint32_t freed) const override { return HasNotEnoughFreeSecs(freed, 0); }
  uint32_t NeededFreeSecs() const override;
  uint64_t ValidBlocks() const override { return valid_block_count_; }
  // No operation for `interval` and no I/O of any kind in flight.
  bool IsIdle(sim::SimTime interval) const override;
  sim::Task<void> CheckpointForCleaning() override { return Checkpoint(CpReason::kGc); }
  sim::Task<uint32_t> MigrateSection(uint32_t sec, bool foreground) override;
  sim::Task<void> BackgroundBalance() override { return BalanceFsBg(); }
  sim::Task<void> GcThread();  // the cleaner's thread, counted in threads_running_

  // ---- Mount and recovery (f2fs_mount.cc).
  sim::Task<sim::Status> LoadCheckpoint();
  sim::Task<void> RecoverOrphans(const std::vector<Nid>& orphans);
  sim::Task<sim::Status> RecoverFsyncData();
  void StartThreads();

  // ---- Journal (durability mode journal; f2fs_journal.cc).
  // Commits the running epoch: ordered (every write submitted before it
  // completes first), then its records, the last block after a flush with
  // FUA (journal barrier); a checkpoint first when they do not fit.
  sim::Task<void> CommitJournal();
  sim::Task<void> JournalCommitThread();
  // Returns once every record below `target` is durable (a commit or a
  // checkpoint), committing as needed.
  sim::Task<void> JournalSync(uint64_t target);
  // fsync with a journal: the file's data written and waited for, an
  // fsync record (size, inline data), then the journal committed.
  sim::Task<Errno> JournalFsync(Inode* inode);
  // The CPU time of appending one record, and of the records whose time
  // is owed (journal_cpu_owed_, see WriteDataPage).
  sim::Task<void> JournalCpu();
  uint64_t journal_cpu_owed_ = 0;
  // At mount: replays the committed records after the checkpoint's
  // position; `*applied` counts the records applied.
  sim::Task<sim::Status> ReplayJournal(const JournalPosition& cp, uint64_t* applied);
  sim::Task<bool> ReplayRecord(const JournalRecord& r);
  // SETATTR/FSYNC replay: the size as of the record, metadata only.
  sim::Task<bool> ReplayResize(Inode* in, uint64_t size);

  // ---- State.
  const F2fsConfig cfg_;
  const Layout layout_;
  sim::EventQueue* q_;
  ssd::BlockDevice* dev_;
  Image* image_;
  sim::StatGroup stat_group_;
  Listener* listener_ = nullptr;
  std::function<double()> device_wa_;
  bool dead_ = false;
  bool erase_before_reuse_ = false;  // the device has fixed placement (see TrimFreedSections)
  std::vector<uint64_t> region_reads_;        // with regions: blocks read in flight per region
  std::vector<uint64_t> region_writes_done_;  // with regions: blocks written and completed per region
  uint32_t blocks_per_page_ = 1;     // on such a device: 4 KiB blocks per flash page (see PadToFlashPage)
  bool stopping_ = false;

  std::unique_ptr<AllocationPolicy> alloc_;  // before sm_, which uses it
  std::unique_ptr<SegmentManager> sm_;
  std::unique_ptr<NatTable> nat_;
  std::unique_ptr<Durability> durability_;  // after sm_ and nat_, which it reads
  Journal* journal_ = nullptr;              // durability_'s journal, if it has one
  JournalPosition mounted_journal_pos_;     // the loaded checkpoint's
  uint64_t covered_record_seq_ = 0;
  uint64_t journal_recovered_key_ = 0;
  uint64_t journal_durable_seq_ = 0;  // records below it are durable (commit or checkpoint)
  uint64_t cp_durable_record_seq_ = 0;  // records below it are in a committed checkpoint
  bool replaying_ = false;  // journal replay at mount: allocate no block        // records below it are in the last checkpoint
  bool journal_committing_ = false;
  std::unique_ptr<CheckpointWriter> cpw_;  // after sm_ and nat_; the SIT journal and version bitmap
  std::array<bool, 8> ipu_bits_{};  // by bit index (force, ssr, util, ssr_util, fsync, async)

  // Nodes and inodes.
  NodeCache node_cache_;  // node pages, the global dirty set and the per-file dirty lists
  std::unordered_map<uint32_t, std::unique_ptr<Inode>> inodes_;
  // Inodes whose time_dirty / trans_dir flag was set since the checkpoint
  // last cleared them (a superset of those that still have it), so the
  // checkpoint does not walk every inode in memory (issue 15).
  std::vector<uint32_t> time_dirty_inos_;
  std::vector<uint32_t> trans_dir_inos_;
  void MarkTimeDirty(Inode* in) {
    if (!in->time_dirty) time_dirty_inos_.push_back(in->ino.v);
    in->time_dirty = true;
  }
  void MarkTransDir(Inode* dir) {
    if (!dir->trans_dir) trans_dir_inos_.push_back(dir->ino.v);
    dir->trans_dir = true;
  }
  std::set<uint32_t> orphans_;
  vfs::FdTable<OpenFile> fds_;

  // Page cache.
  vfs::PageCache cache_;
  vfs::Writeback wb_;  // file data (dentry pages are counted below)
  uint64_t dirty_dentry_pages_ = 0;
  std::set<uint32_t> dirty_dirs_;  // directories with dirty dentry pages
  std::vector<std::unique_ptr<Inode>> freed_inodes_;  // freed, still referenced
  vfs::WaitQueue wb_wq_;          // page writeback completions

  // Space accounting (total_valid_block_count: data + NEW reservations + nodes).
  uint64_t valid_block_count_ = 0;
  uint32_t valid_inode_count_ = 0;
  uint64_t alloc_since_cp_ = 0;  // alloc_valid_block_count: new blocks and nodes since the checkpoint

  // Checkpoint.
  vfs::RwLock cp_lock_;  // cp_rwsem
  // Held by a cleaning migration while it allocates and submits its moved
  // blocks: concurrent migrations (per-region cleaning threads) write the
  // same logs, and a log's flash pages must reach the device in order.
  vfs::RwLock gc_write_lock_;
  uint64_t cp_ver_ = 0;
  uint64_t mounted_cp_ver_ = 0;
  bool mounted_clean_ = false;  // the loaded checkpoint was written by umount
  bool cp_running_ = false;
  bool cp_active_ = false;   // DoCheckpoint past its skip test (checkpoint_activity)
  uint64_t cp_begun_ = 0;    // checkpoints past their skip test
  uint64_t cp_started_ = 0;
  uint64_t cp_completed_ = 0;
  vfs::WaitQueue cp_wq_;
  sim::SimTime last_op_time_;

  // Discard.
  std::unique_ptr<DiscardQueue> dq_;
  std::deque<IoReq*> held_writes_;  // writes waiting for an issued discard of their blocks
  vfs::WaitQueue discard_wq_;            // issued discards completing

  // I/O.
  IoReq* free_reqs_ = nullptr;
  std::vector<std::unique_ptr<IoReq>> all_reqs_;
  uint64_t writes_in_flight_ = 0;
  uint64_t cp_writes_in_flight_ = 0;  // of the kinds CpGuaranteed (F2FS_WB_CP_DATA)
  // Plain data writes in flight (Io::kData: F2FS_WB_DATA), by submission number.
  std::map<uint64_t, const IoReq*> plain_writes_;
  uint64_t plain_write_seq_ = 0;
  std::set<uint64_t> cp_awaited_plain_;  // the plain writes WaitCheckpointWrites waits for
  uint64_t ordered_write_seq_ = 0;
  std::set<uint64_t> ordered_writes_;  // with a journal: data writes in flight, by ordered_seq
  // With a journal: pages whose DATA_WRITE record is appended and whose
  // write is not submitted yet (in a WriteBatcher), and their record seqs.
  std::unordered_map<const Page*, uint64_t> ordered_unsubmitted_;
  std::multiset<uint64_t> ordered_unsubmitted_seqs_;
  vfs::WaitQueue cp_io_wq_;                   // WaitCheckpointWrites' waiter
  uint64_t reads_in_flight_ = 0;
  uint64_t trims_in_flight_ = 0;
  uint64_t warm_node_seq_ = 0;
  std::set<uint64_t> warm_node_inflight_;
  uint64_t ios_in_flight_ = 0;
  vfs::WaitQueue io_wq_;  // WaitAllWrites' and WaitPlainWrites' waiters
  bool flush_inflight_ = false;
  std::vector<sim::Completion<bool>*> flush_waiters_cur_;
  std::vector<sim::Completion<bool>*> flush_waiters_next_;

  // Cleaning (policy and pacing; the migration is MigrateSection).
  std::unique_ptr<Cleaner> cleaner_;

  // Background threads.
  vfs::DaemonTimer discard_timer_;
  vfs::DaemonTimer commit_timer_;
  vfs::WaitQueue journal_wq_;  // journal commits finishing
  vfs::OwnedThread commit_thread_;
  vfs::OwnedThread flusher_thread_;
  vfs::OwnedThread gc_thread_;
  vfs::OwnedThread discard_thread_;
  uint32_t threads_running_ = 0;
  vfs::WaitQueue threads_wq_;

  // Transactions.
  std::map<uint64_t, TxSet> tx_sets_;
  uint64_t next_tx_key_ = 1;
  // Master nodes written since the last checkpoint: valid (so nothing,
  // SSR included, reuses them while roll-forward may need them) until the
  // next checkpoint, which covers their transactions and invalidates them
  // before it writes the SIT.
  std::vector<BlockAddr> live_masters_;
  // Stolen blocks of running transactions -> (ino, page index).
  std::unordered_map<uint32_t, std::pair<Nid, uint64_t>> stolen_owner_;
  bool tx_stats_registered_ = false;
  vfs::WaitQueue tx_wq_;  // commits finishing

  // The host's CPUs (null: bursts run at once), the kernel lock classes
  // (fs.locks.*) and the CPU owners of the background threads.
  sim::CpuScheduler* cpu_ = nullptr;
  std::unique_ptr<vfs::LockClass> cp_rwsem_class_;
  std::unique_ptr<vfs::LockClass> gc_lock_class_;
  std::unique_ptr<vfs::LockClass> i_rwsem_class_;
  std::unique_ptr<vfs::LockClass> journal_list_class_;  // with a journal
  std::unique_ptr<vfs::SpinLock> journal_list_lock_;    // list_lock: global
  uint16_t owner_flusher_ = 0;
  uint16_t owner_gc_ = 0;
  uint16_t owner_discard_ = 0;
  uint16_t owner_journal_ = 0;

  Stats stats_;
};

}  // namespace fs::f2fs
