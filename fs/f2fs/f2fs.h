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
// Structure (docs/DESIGN.md, "F2FS parts and their seams"): F2fs assembles
// managers that own their state behind narrow interfaces, each header
// stating its contract, the state it owns and what guards it, and calling
// back only through a host interface F2fs implements: IoManager
// (io_manager.h: block I/O, in-flight classes, merged flushes),
// DiscardManager (discard_manager.h: when freed blocks are trimmed),
// InodeTable (inode_table.h: in-memory inodes, orphans),
// CheckpointManager (checkpoint_manager.h: the checkpoint and cp_rwsem),
// NodeManager (node_manager.h: the NAT and node pages, node trees, node
// writes, truncation), NamespaceManager (namespace_manager.h: path walks,
// directories, iget and inode creation), Namei (namei.h: the namespace
// calls), DataPages (data_pages.h: data and dentry pages in the page
// cache, their dirty accounting), DataPath (data_path.h: reads, writes,
// truncation, a data page's write), FsyncManager (fsync_manager.h:
// f2fs_do_sync_file), TxManager (tx_manager.h: transactions),
// JournalCommitter (journal_committer.h: F2FS-J's commits), Recovery
// (recovery.h: orphans and roll-forward at mount), Fsck (fsck.h), Cleaner,
// Durability and Journal, CheckpointWriter, SegmentManager. F2fs itself
// implements the FileSystem calls by delegation (descriptors, latency,
// syscall CPU) and keeps mount (checkpoint loading), the journal's replay
// and commit thread, the background threads, cleaning's block migration,
// inode freeing and eviction, and space accounting.
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
//   (GcMigrator, gc_migrator.h) to the cold data log (ATGC log with the atgc option):
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
//   DiscardManager::TrimFreedSections) and pending discards do not merge.
// - Durability mode journal (F2FS-J, journal.h, journal_committer.h,
//   journal_replay.h): mkfs
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
// - Transactions (tx_manager.h; FileSystem's Tx* and AtomicWrite* calls):
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
#include "fs/f2fs/checkpoint_manager.h"
#include "fs/f2fs/checkpoint_writer.h"
#include "fs/f2fs/data_pages.h"
#include "fs/f2fs/data_path.h"
#include "fs/f2fs/cleaner.h"
#include "fs/f2fs/discard_manager.h"
#include "fs/f2fs/discard_queue.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/fsync_manager.h"
#include "fs/f2fs/gc_migrator.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/journal.h"
#include "fs/f2fs/journal_committer.h"
#include "fs/f2fs/journal_replay.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/namei.h"
#include "fs/f2fs/namespace_manager.h"
#include "fs/f2fs/nat_table.h"
#include "fs/f2fs/node_cache.h"
#include "fs/f2fs/node_manager.h"
#include "fs/f2fs/on_disk.h"
#include "fs/f2fs/recovery.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/f2fs/tx_manager.h"
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
                   private IoManager::Host,
                   private CheckpointManager::Host,
                   private NodeManager::Host,
                   private NamespaceManager::Host,
                   private FsyncManager::Host,
                   private TxManager::Host,
                   private JournalCommitter::Host,
                   private DataPath::Host,
                   private Recovery::Host,
                   private Namei::Host,
                   private GcMigrator::Host,
                   private JournalReplay::Host,
                   private DurabilityHost,
                   private CleanerHost,
                   private DiscardManager::Host,
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

  // Why a checkpoint runs, and the observer of checkpoints
  // (checkpoint_manager.h).
  using CpReason = ::fs::f2fs::CpReason;
  using Listener = CheckpointListener;

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
  // Zoned mode (a device with layout().zoned, mkfs.f2fs -m): the layout
  // parameters of a volume on it — main area at the first sequential zone,
  // a section per zone, its usable segments from the zone capacity — or why
  // the configuration cannot run there (mode must be lfs, segs_per_sec the
  // zone's, the zones whole segments, a conventional area for metadata).
  static sim::Status ZonedLayoutParams(const F2fsConfig& cfg, const ssd::ZoneLayout& zones, uint32_t page_size,
                                       LayoutParams* lp);

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
  sim::Task<FsResult<uint64_t>> TxAdd(uint64_t key, Fd fd) override { return txm_->Add(key, fd); }
  sim::Task<FsStatus> TxStart(uint64_t key) override { return txm_->Start(key); }
  sim::Task<FsStatus> TxCommit(uint64_t key) override { return txm_->Commit(key); }
  sim::Task<FsStatus> TxEnd(uint64_t key) override { return txm_->End(key); }
  sim::Task<FsStatus> AtomicWriteStart(Fd fd) override { return txm_->AtomicWriteStart(fd); }
  sim::Task<FsStatus> AtomicWriteCommit(Fd fd) override { return txm_->AtomicWriteCommit(fd); }
  sim::Task<FsStatus> AtomicWriteAbort(Fd fd) override { return txm_->AtomicWriteAbort(fd); }

  // Clean unmount: stops the background threads, writes back everything
  // and writes an umount checkpoint. No call may follow.
  sim::Task<FsStatus> Unmount();
  // Runs a checkpoint now (F2FS_IOC_WRITE_CHECKPOINT).
  sim::Task<void> WriteCheckpointNow() { return cpm_->Checkpoint(CpReason::kSync); }
  // Runs one cleaning round (F2FS_IOC_GARBAGE_COLLECT); returns the number
  // of victim sections cleaned (0: no victim).
  sim::Task<uint32_t> GarbageCollect(bool foreground) { return cleaner_->Gc(foreground, /*from_thread=*/false); }
  // echo 3 > drop_caches: drops every clean, unused page and every clean
  // NAT cache entry (FileSystem::DropCaches). Always ok.
  FsStatus DropCaches() override;
  // A checkpoint is running from its apply (journal mode) or block
  // operations to its commit; skipped checkpoints do not count.
  CheckpointActivity checkpoint_activity() const override { return {cpm_->begun(), cpm_->active()}; }
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
  void set_listener(Listener* l) { cpm_->set_listener(l); }

  // ---- Introspection.
  const Layout& layout() const { return layout_; }
  const F2fsConfig& config() const { return cfg_; }
  uint64_t checkpoint_version() const { return cpm_->version(); }
  // Version of the checkpoint the mount loaded (before any recovery checkpoint).
  uint64_t mounted_checkpoint_version() const { return mounted_cp_ver_; }
  // Durability mode journal: the key (Listener::OnJournalSwitch) of the
  // last commit the mount replayed, 0 if the checkpoint's state stood.
  uint64_t journal_recovered_key() const { return journal_recovered_key_; }
  uint64_t checkpoints() const { return cpm_->stats().count.value(); }
  const SegmentManager& segments() const { return *sm_; }
  const NatTable& nat() const { return nm_->nat(); }
  uint64_t dirty_node_pages() const { return nm_->cache().dirty().size(); }
  uint64_t dirty_data_pages() const { return wb_.dirty_pages(); }
  uint64_t cached_pages() const { return cache_.pages(); }
  uint64_t valid_block_count() const { return valid_block_count_; }
  uint64_t free_user_blocks() const {
    return layout_.user_block_count > valid_block_count_ ? layout_.user_block_count - valid_block_count_ : 0;
  }
  uint64_t blocks_written() const;
  uint64_t app_blocks_written() const { return stats_.app_bytes_written.value() / kBlockSize; }
  uint64_t recovered_dnodes() const { return stats_.recovered_dnodes.value(); }
  uint64_t tx_commits() const { return txm_->stats().commits.value(); }
  uint64_t tx_stolen_pages() const { return txm_->stats().stolen.value(); }
  uint64_t tx_stolen_moved() const { return txm_->stats().stolen_moved.value(); }
  uint64_t tx_stolen_blocks() const { return txm_->stolen_blocks(); }
  uint64_t tx_commit_checkpoints() const { return txm_->stats().commit_checkpoints.value(); }
  // Committed transactions roll-forward recovery replayed at mount.
  uint64_t tx_recovered() const { return txm_->stats().recovered.value(); }
  const sim::Histogram& tx_commit_latency() const { return txm_->stats().commit_lat; }
  uint64_t gc_moved_blocks() const;
  uint64_t gc_moved_bg_blocks() const { return stats_.gc_moved_bg.value(); }
  uint64_t ipu_blocks() const { return stats_.ipu_blocks.value(); }
  uint64_t evicted_pages() const { return stats_.evicted_pages.value(); }
  uint64_t ssr_allocations() const { return stats_.ssr_blocks.value(); }
  const DiscardQueue& discards() const { return *dq_; }
  const sim::Histogram& fsync_latency() const { return fsm_->stats().total; }
  const sim::Histogram& fsync_nodes_visited() const { return fsm_->stats().visited; }

 private:
  enum class Op : uint8_t {
    kOpen, kClose, kRead, kWrite, kPread, kPwrite, kFtruncate, kTruncate, kFsync, kFdatasync, kFstat,
    kStat, kUnlink, kMkdir, kRmdir, kRename, kReaddir, kSync, kLink, kCount
  };

  // In-memory inodes and their transaction state (inode_table.h).
  using Inode = ::fs::f2fs::Inode;
  using TxFile = ::fs::f2fs::TxFile;

  struct OpenFile {
    Inode* inode = nullptr;
    uint64_t pos = 0;
    uint32_t flags = 0;
  };


  using DnodeRef = ::fs::f2fs::DnodeRef;
  // Inode references, path lookups and dentry locations (inode_table.h,
  // namespace_manager.h).
  using InodeRef = ::fs::f2fs::InodeRef;
  using ParentRef = ::fs::f2fs::ParentRef;
  using DentryLoc = ::fs::f2fs::DentryLoc;
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
    sim::Counter section_trims, logs_moved_at_mount, nat_reads;
    DiscardStats discard;
    sim::Counter app_bytes_written, app_bytes_read, direct_bytes_written, direct_bytes_read;
    sim::Counter ipu_blocks, opu_blocks, ssr_blocks;
    CleanerStats cleaner;
    sim::Counter gc_moved_bg, gc_moved_fg;
    sim::Counter recovered_inodes, recovered_dnodes, recovered_dentries, orphans_freed;
    sim::Counter evicted_pages, throttled_writes;
    // Durability mode journal.
    sim::Counter j_replayed, j_replay_skipped, j_replay_dropped, j_corrupt_blocks;
    sim::Counter j_applies, j_apply_blocks, j_apply_held;
    sim::Histogram j_apply_lat;
  };

  F2fs(const F2fsConfig& cfg, const Layout& layout, Env env);
  void RegisterStats();

  // ---- CPU and time.
  sim::CpuBurst Cpu(sim::SimTime d) override;  // also CheckpointManager::Host

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
  bool CheckpointLockHeld() const override { return cpm_->LockHeld(); }
  uint64_t DirtyNodePages() const override { return nm_->cache().dirty().size(); }
  bool AnyIoInFlight() const override { return io_->AnyInFlight(); }
  bool HasUncheckpointedChanges() const override { return FsDirty(); }

  // ---- Device I/O (io_manager.h).
  // IoManager::Host: a file's data block written; a discard completed.
  void FileBlockWritten(uint32_t ino) override {
    Inode* in = FindInode(Nid{ino});
    if (in && in->wb_writes > 0) --in->wb_writes;
  }
  void DiscardDone() override { dm_->OnDiscardDone(); }
  // RegionLoad (with regions): blocks allocated minus writes completed, and
  // reads in flight, per region.
  uint64_t ReadBytes(uint32_t region) const override { return io_->region_reads(region) * kBlockSize; }
  uint64_t WriteBytes(uint32_t region) const override {
    const uint64_t a = sm_->allocated_blocks(region), d = io_->region_writes_done(region);
    return a > d ? (a - d) * kBlockSize : 0;
  }
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
  sim::Status MoveLogsPastUncheckpointedWrites(bool all) override;

  // ---- Page cache (f2fs_data.cc).
  // vfs::PageCache::Owner: unlinks an evicted page from its inode or the node cache.
  std::unique_ptr<vfs::CachedPage> Evict(vfs::CachedPage* p) override;
  // Data and dentry pages (data_pages.h; also NamespaceManager::Host).
  DataPage* FindDataPage(Inode* inode, uint64_t index) override { return dp_->Find(inode, index); }
  DataPage* NewDataPage(Inode* inode, uint64_t index) override { return dp_->New(inode, index); }
  void DropDataPage(Inode* inode, uint64_t index) override { dp_->Drop(inode, index); }
  void SetDataPageDirty(Inode* inode, DataPage* p) override { dp_->SetDirty(inode, p); }
  DentryBlock& MutDents(DataPage* p) override { return DataPages::MutDents(p); }
  sim::Task<void> BalanceDirtyPages();
  // The data path (data_path.h); these are the hosts' entries to it.
  sim::Task<void> WritebackInode(Inode* inode, uint64_t max_pages, bool wait, bool from_cp = false) override {
    return dpath_->WritebackInode(inode, max_pages, wait, from_cp);
  }
  sim::Task<Errno> WriteDataPage(Inode* inode, DataPage* p, bool hot, bool sync, WriteBatcher& wb) override {
    return dpath_->WriteDataPage(inode, p, hot, sync, wb);
  }
  LogType DataLogType(const Inode* inode, bool hot, bool gc) const override {
    return dpath_->DataLogType(inode, hot, gc);
  }
  sim::Task<void> FlusherThread();
  // ---- vfs::WritebackHost.
  vfs::WritebackState* FindWritebackState(uint64_t ino, uint64_t* dirty_pages) override;
  sim::Task<bool> WritebackFile(uint64_t ino, uint64_t max_pages) override;
  bool FlusherStop() const override { return stopping_ || dead_; }
  bool FlusherAbort() const override { return dead_; }
  sim::Task<void> AfterWritebackPass() override { return BalanceFsBg(); }
  sim::Task<Errno> DoRead(Inode* inode, uint64_t offset, uint8_t* dst, uint64_t len, uint64_t* done) override {
    return dpath_->Read(inode, offset, dst, len, done);
  }
  sim::Task<Errno> DoWrite(Inode* inode, uint64_t offset, std::span<const uint8_t> data, uint64_t length,
                           uint64_t* done, bool in_commit = false) override {
    return dpath_->Write(inode, offset, data, length, done, in_commit);
  }
  sim::Task<Errno> ConvertInlineData(Inode* inode) override { return dpath_->ConvertInlineData(inode); }
  sim::Task<Errno> DoTruncate(Inode* inode, uint64_t size, bool in_commit = false) override {
    return dpath_->Truncate(inode, size, in_commit);
  }

  // ---- Nodes (node_manager.h).
  sim::Task<NodePage*> LoadNode(Nid nid) { return nm_->Load(nid); }
  std::unique_ptr<NodePage> UnlinkNodePage(NodePage* np) { return nm_->Unlink(np); }
  void RemoveNodePage(NodePage* np) { nm_->Remove(np); }
  void FreeNode(NodePage* np) { nm_->FreeNode(np); }
  void WriteNodePage(NodePage* np, bool fsync_mark, bool dent_mark, WriteBatcher& wb) {
    nm_->WriteNodePage(np, fsync_mark, dent_mark, wb);
  }
  sim::Task<Errno> TruncateBlocks(Inode* inode, uint64_t from) { return nm_->TruncateBlocks(inode, from); }
  // ---- NodeManager::Host, and space accounting (f2fs_node.cc).
  uint64_t CheckpointVersion() const override { return cpm_->version(); }
  bool NeedSsr() const override { return alloc_->NeedSsr(*sm_, SpacePressure{nm_->cache().dirty().size(), dp_->dirty_dentry_pages()}); }
  bool HasNotEnoughFreeSecs(uint32_t freed, uint32_t needed) const;
  bool IncValidBlocks(uint64_t n) override;
  void DecValidBlocks(uint64_t n) override;

  // ---- Inodes (f2fs_dir.cc) and names (namespace_manager.h).
  Inode* FindInode(Nid ino);
  void MaybeEvictInode(Inode* inode);
  sim::Task<void> FreeInode(Inode* inode) override;
  sim::Task<void> ReleaseInode(Inode* inode);  // drops the last reference of an unlinked inode
  const InodeFields& I(const Inode* inode) const { return nm_->I(inode); }
  InodeFields& MutI(Inode* inode) { return nm_->MutI(inode); }
  sim::Task<Inode*> GetInode(Nid ino) { return ns_->GetInode(ino); }
  sim::Task<FsResult<Nid>> LookupPath(std::string_view path) { return ns_->LookupPath(path); }
  sim::Task<std::vector<std::pair<std::string, Dentry>>> ListDir(Inode* dir) { return ns_->ListDir(dir); }
  void InodeCreated() override { ++valid_inode_count_; }
  FsResult<OpenFile*> GetFd(Fd fd);
  sim::Task<FsStatus> DoFsync(Fd fd, bool datasync, Op op);
  sim::Task<FsResult<uint64_t>> DoPwrite(Fd fd, int64_t offset, std::span<const uint8_t> data, uint64_t length,
                                         Op op);
  // `discard` > 0 (out empty): read that many bytes without handing them back.
  sim::Task<FsResult<uint64_t>> DoPread(Fd fd, int64_t offset, std::span<uint8_t> out, Op op, uint64_t discard = 0);
  FileStat StatOf(const Inode* inode) const;
  sim::Task<vfs::SharedLock> LockOp() { return cpm_->LockOp(); }  // f2fs_lock_op (checkpoint_manager.h)
  sim::Task<void> BalanceFs() override;  // f2fs_balance_fs: foreground GC when space is short

  // ---- Transactions (tx_manager.h).
  // ---- TxManager::Host.
  void RequestArrived() override { last_op_time_ = q_->now(); }
  FsResult<Inode*> FdInode(Fd fd, uint32_t* flags) override;
  void AddMasterNodeBlock() override { ++valid_block_count_; }

  // ---- fsync (fsync_manager.h).
  sim::Task<Errno> SyncFile(Inode* inode, bool datasync) { return fsm_->SyncFile(inode, datasync); }
  // ---- FsyncManager::Host.
  void FsyncEnded(Inode* inode) override { txm_->FsyncEnded(inode); }
  uint64_t AllocatedSinceCheckpoint() const override { return alloc_since_cp_; }
  uint64_t ValidBlocksAtCheckpoint() const override { return valid_at_cp_; }

  // ---- Checkpoint (checkpoint_manager.h; the host side in f2fs_checkpoint.cc).
  sim::Task<void> Checkpoint(CpReason reason) { return cpm_->Checkpoint(reason); }
  bool FsDirty() const;
  // f2fs_balance_fs_bg. `after_commit`: called by the journal's commit
  // thread right after a commit.
  sim::Task<void> BalanceFsBg(bool after_commit = false);
  // ---- CheckpointManager::Host.
  uint64_t DirtyDentryPages() const override { return dp_->dirty_dentry_pages(); }
  // Writes back the dirty dentry pages of every directory (without taking
  // cp_rwsem: a checkpoint calls it with the lock released or held).
  sim::Task<void> SyncDirtyDirs() override;
  // Durability mode journal with apply: committed.
  bool ApplyCommittedMode() const override;
  // Durability mode journal, apply: committed — before a checkpoint takes
  // cp_rwsem: write the dirty node pages no uncommitted record has touched,
  // with operations going on.
  sim::Task<void> ApplyCommitted() override;
  void SyncInodeMeta() override;
  void ReleaseCoveredMasterNodes() override;
  void FillPackFacts(CheckpointWriter::PackFacts* facts) const override;
  // do_checkpoint: last_valid_block_count = total_valid_block_count,
  // alloc_valid_block_count = 0 (operations are blocked until it returns).
  void CheckpointCommitted() override {
    valid_at_cp_ = valid_block_count_;
    alloc_since_cp_ = 0;
  }
  void JournalCheckpointed(uint64_t record_seq) override;
  void EvictIdleInodes() override;

  // ---- Discard (discard_manager.h).
  sim::Task<void> DiscardThread();  // the discard manager's thread, counted in threads_running_

  // ---- Cleaning (f2fs_gc.cc).
  // ---- CleanerHost.
  bool Dead() const override { return dead_; }
  bool Stopping() const override { return stopping_; }
  bool HasNotEnoughFreeSecs(uint32_t freed) const override { return HasNotEnoughFreeSecs(freed, 0); }
  uint32_t NeededFreeSecs() const override;
  uint64_t ValidBlocks() const override { return valid_block_count_; }
  // No operation for `interval` and no I/O of any kind in flight.
  bool IsIdle(sim::SimTime interval) const override;
  sim::Task<void> CheckpointForCleaning() override { return cpm_->Checkpoint(CpReason::kGc); }
  sim::Task<uint32_t> MigrateSection(uint32_t sec, bool foreground) override {
    return migrator_->Migrate(sec, foreground);
  }
  sim::Task<void> BackgroundBalance() override { return BalanceFsBg(); }
  sim::Task<void> GcThread();  // the cleaner's thread, counted in threads_running_

  // ---- Mount and recovery (f2fs_mount.cc).
  sim::Task<sim::Status> LoadCheckpoint();
  // ---- Recovery::Host (orphans and roll-forward are the Recovery's, recovery.h).
  void AddRecoveredBlock() override { ++valid_block_count_; }
  void StartThreads();

  // ---- Journal (durability mode journal): the commits are the
  // JournalCommitter's (journal_committer.h), the replay at mount the
  // JournalReplay's (journal_replay.h); the commit thread is here
  // (f2fs_journal.cc).
  sim::Task<void> JournalCommitThread();
  // FsyncManager::Host: fsync through the journal.
  sim::Task<Errno> JournalFsync(Inode* inode) override { return jcm_->Fsync(inode); }

  // ---- State.
  const F2fsConfig cfg_;
  const Layout layout_;
  sim::EventQueue* q_;
  ssd::BlockDevice* dev_;
  Image* image_;
  sim::StatGroup stat_group_;
  std::function<double()> device_wa_;
  bool dead_ = false;
  bool erase_before_reuse_ = false;  // the device has fixed placement (see DiscardManager::TrimFreedSections)
  bool stopping_ = false;

  std::unique_ptr<AllocationPolicy> alloc_;  // before sm_, which uses it
  std::unique_ptr<SegmentManager> sm_;
  NatTable* nat_ = nullptr;  // the NodeManager's (created before it, for durability_ and cpw_)
  std::unique_ptr<Durability> durability_;  // after sm_ and nat_, which it reads
  Journal* journal_ = nullptr;              // durability_'s journal, if it has one
  JournalPosition mounted_journal_pos_;     // the loaded checkpoint's
  uint64_t journal_recovered_key_ = 0;
  std::unique_ptr<CheckpointWriter> cpw_;  // after sm_ and nat_; the SIT journal and version bitmap

  // Nodes and inodes.
  // The node manager: the NAT and the node pages (the global dirty set and
  // the per-file dirty lists). Declared before the page cache, so its pages
  // go after the cache's lists; built once the I/O layer is.
  std::unique_ptr<NodeManager> nm_;
  InodeTable itab_;  // the in-memory inodes, orphans, the lists a checkpoint clears
  vfs::FdTable<OpenFile> fds_;

  // Page cache.
  vfs::PageCache cache_;
  vfs::Writeback wb_;  // file data (dentry pages are counted by dp_)
  std::unique_ptr<DataPages> dp_;  // file data and dentry pages in the cache, dentry accounting

  // Space accounting (total_valid_block_count: data + NEW reservations + nodes).
  uint64_t valid_block_count_ = 0;
  uint32_t valid_inode_count_ = 0;
  uint64_t alloc_since_cp_ = 0;  // alloc_valid_block_count: new blocks and nodes since the checkpoint
  uint64_t valid_at_cp_ = 0;     // last_valid_block_count: valid_block_count_ at the last checkpoint

  // Mount.
  uint64_t mounted_cp_ver_ = 0;
  bool mounted_clean_ = false;  // the loaded checkpoint was written by umount
  sim::SimTime last_op_time_;

  // Discard.
  std::unique_ptr<DiscardQueue> dq_;  // shared by io_ (held writes) and dm_ (when to issue)

  // I/O (after the page cache, sm_ and dq_, which it uses).
  std::unique_ptr<IoManager> io_;
  std::unique_ptr<DiscardManager> dm_;  // after io_, which it uses
  std::unique_ptr<NamespaceManager> ns_;  // after io_ and nm_, which it uses
  std::unique_ptr<CheckpointManager> cpm_;  // after io_, dm_ and nm_, which it uses
  std::unique_ptr<FsyncManager> fsm_;       // after cpm_ and nm_, which it uses
  std::unique_ptr<TxManager> txm_;          // after fsm_, cpm_, nm_, io_ and dp_, which it uses
  std::unique_ptr<JournalCommitter> jcm_;   // with a journal; after fsm_, cpm_, nm_ and io_
  std::unique_ptr<DataPath> dpath_;         // after jcm_, cpm_, dp_, nm_ and io_, which it uses
  std::unique_ptr<Recovery> recovery_;      // after txm_, ns_, cpm_, dp_, nm_ and io_, which it uses
  std::unique_ptr<Namei> namei_;            // after ns_, nm_, cpm_ and jcm_, which it uses
  std::unique_ptr<GcMigrator> migrator_;    // after dpath_, txm_, ns_, nm_ and io_, which it uses
  std::unique_ptr<JournalReplay> replay_;   // with a journal; after ns_, nm_, cpm_ and io_

  // Cleaning (policy and pacing; the migration is the GcMigrator's).
  std::unique_ptr<Cleaner> cleaner_;

  // Background threads.
  vfs::DaemonTimer commit_timer_;
  vfs::OwnedThread commit_thread_;
  vfs::OwnedThread flusher_thread_;
  vfs::OwnedThread gc_thread_;
  vfs::OwnedThread discard_thread_;
  uint32_t threads_running_ = 0;
  vfs::WaitQueue threads_wq_;


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
