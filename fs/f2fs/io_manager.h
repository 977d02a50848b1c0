// IoManager: the F2FS model's block I/O layer — the kernel's bio
// submission (data.c f2fs_submit_page_write / __submit_merged_bio, the
// f2fs_wait_on_*_writeback waits) and merged cache flushes (segment.c
// flush_cmd_control). Every block the F2FS model reads, writes, trims or
// flushes goes through here; the device's completions come back here.
//
// Contract:
// - SubmitWrite / SubmitRead / SubmitTrim queue one request each on the
//   device (queue cfg.io_queue) and hand written blocks to the Image (what
//   is on flash once the request completes). A write counts in one of two
//   classes (CpGuaranteed): what a checkpoint guarantees (nodes, meta,
//   checkpoint blocks, dentries, data moved by cleaning) and plain file data
//   (F2FS_WB_DATA), which only fsync makes durable. With `ordered` (the
//   journal durability mode) file-data writes are also numbered for
//   WaitOrderedWrites.
// - A write to a block an issued discard still covers (DiscardQueue::
//   IssuedOverlaps) is held back until that discard completes
//   (f2fs_wait_discard_bio), then sent in submission order.
// - WriteBatcher merges contiguous block writes into requests of at most
//   cfg.max_io bytes; on a device that programs whole flash pages of
//   several blocks, a batch ending inside a page its log has not allocated
//   further is padded to the page end (PadToFlashPage).
// - IssueFlush merges cache flushes: a flush asked for while one is in
//   flight waits for the next one, which starts when the current completes.
// - The Wait* calls return once the writes they name have completed, or at
//   once after Kill() (power cut). Every wait is a loop on one of the wait
//   queues below, so the event order is the callers'.
// - Completion side effects, in this order for a write: the Image learns
//   the blocks are durable (FUA or not), each page's writeback ends in the
//   page cache, Host::FileBlockWritten per block of file data, warm-node
//   sequence numbers retire, the in-flight classes and per-region counts
//   drop, waiters wake. A completed discard command is reported to the
//   DiscardQueue, held writes it covered are sent and Host::DiscardDone is
//   called.
//
// State owned (all synchronous, no lock: the model's I/O bookkeeping runs
// between suspension points): the request pool; in-flight counts of every
// kind; the plain, checkpoint-guaranteed, ordered and warm-node write
// sets; writes held for discards; the flush merge state; the per-region
// read and write-completion counts (RegionLoad of an allocation policy with
// regions); the I/O statistics (IoStats). Not owned: the device, the Image,
// the SegmentManager (read for padding and block validity), the
// DiscardQueue, the page cache.
//
// Who calls it: every F2FS path that reads or writes blocks (data, nodes,
// checkpoint, cleaning, journal, transactions, mount). It calls nobody of
// the F2FS model back except through Host.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "fs/f2fs/discard_queue.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/node_cache.h"
#include "fs/f2fs/on_disk.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/vfs/page_cache.h"
#include "fs/vfs/sync_primitives.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "ssd/block_device.h"

namespace fs::f2fs {

// Block I/O categories for statistics.
enum class Io : uint8_t { kData, kDentry, kNode, kMeta, kCp, kGcData, kGcNode, kJournal, kCount };

// A set of requests someone waits for as a whole (IoManager::WaitBatch).
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
  uint64_t trim_first_id = 0;  // a trim or Zone Reset: the Image's write id of its first block
  uint32_t trim_blocks = 0;    // a trim or Zone Reset: its blocks
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

// The I/O statistics (registered as fs.io.* by the F2fs).
struct IoStats {
  std::array<sim::Counter, static_cast<int>(Io::kCount)> blocks_written, blocks_read;
  sim::Counter flushes, fua_writes, discards, discard_blocks, pad_blocks, unpadded_page_ends;
  sim::Counter zone_resets, zone_finishes;  // zoned device: Zone Management Send commands
  sim::Counter submits_before_wait;         // in-order device: WriteBatcher::BeforeWait submissions
};

class IoManager final : private ssd::BlockClient {
 public:
  // What a completion tells the rest of the file system.
  class Host {
   public:
    virtual ~Host() = default;
    // A data block of file `ino` finished writing (per block, any writer).
    virtual void FileBlockWritten(uint32_t ino) = 0;
    // A discard command's trim completed (after held writes were released).
    virtual void DiscardDone() = 0;
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
    const Layout* layout = nullptr;
    sim::EventQueue* events = nullptr;
    ssd::BlockDevice* device = nullptr;
    Image* image = nullptr;
    SegmentManager* sm = nullptr;
    DiscardQueue* dq = nullptr;
    vfs::PageCache* cache = nullptr;
    Host* host = nullptr;
    sim::Counter* discard_write_waits = nullptr;  // DiscardStats::write_waits
    bool ordered = false;                         // the journal's ordered mode
    uint32_t blocks_per_page = 1;  // 4 KiB blocks per flash page on a fixed-placement device, else 1
  };
  explicit IoManager(const Deps& d);
  IoManager(const IoManager&) = delete;
  IoManager& operator=(const IoManager&) = delete;

  // Power cut: nothing more is submitted, completed or woken.
  void Kill();

  // ---- Submission.
  // `inos`: per block, the file whose data it is (0: none); `node_seqs`:
  // per block, a warm-node write's sequence number (0: none).
  void SubmitWrite(BlockAddr start, std::vector<BlockPtr>& contents, std::vector<Page*>& pages, Io kind,
                   IoBatch* batch, bool fua, const std::vector<uint32_t>* inos = nullptr,
                   const std::vector<uint64_t>* node_seqs = nullptr);
  void SubmitRead(BlockAddr start, uint32_t count, Io kind, IoBatch* batch);
  // `discard_cmd`: the trim of a DiscardQueue command (reported Done when
  // it completes).
  // On a zoned device a trim of exactly one sequential zone is its Zone
  // Reset (__f2fs_issue_discard_zone); the image sees it as a trim.
  void SubmitTrim(BlockAddr start, uint32_t count, bool discard_cmd = false);
  // Whether the device takes writes only in address order within a flash
  // block or zone (fixed placement: the static block-mapped FTL; a zoned
  // device). There a writer must not wait with blocks allocated but not
  // submitted (WriteBatcher::BeforeWait).
  bool in_order() const { return in_order_; }
  sim::EventQueue* events() const { return q_; }
  // Whether `a` is the first block of a sequential zone (a zoned device).
  bool StartsZone(BlockAddr a) const {
    if (zone_blocks_ == 0) return false;
    return a.v >= zone_area_block_ && (a.v - zone_area_block_) % zone_blocks_ == 0;
  }
  // Zone Finish of the sequential zone starting at `zone_start` (its write
  // pointer to the capacity: the zone stops being open or active).
  void SubmitZoneFinish(BlockAddr zone_start);
  // Reads `addrs` (merging contiguous runs) and waits.
  sim::Task<void> ReadBlocks(const std::vector<BlockAddr>& addrs, Io kind);
  sim::Task<void> ReadBlock(BlockAddr a, Io kind);
  sim::Task<void> WaitBatch(IoBatch& b);
  sim::Task<void> IssueFlush();  // merged cache flush (flush_merge)

  // ---- Waits.
  // A new warm-node write's sequence number (its write retires it).
  uint64_t NextWarmNodeSeq() {
    const uint64_t seq = ++warm_node_seq_;
    warm_node_inflight_.insert(seq);
    return seq;
  }
  // The last warm-node write sequence number handed out.
  uint64_t warm_node_seq() const { return warm_node_seq_; }
  // Waits until every warm-node write submitted up to now has completed
  // (f2fs_wait_on_node_pages_writeback): the roll-forward chain has no hole.
  sim::Task<void> WaitWarmNodeWrites() { return WaitWarmNodeWritesUpTo(warm_node_seq_); }
  // Waits until every warm-node write numbered up to `seq` has completed.
  sim::Task<void> WaitWarmNodeWritesUpTo(uint64_t seq);
  sim::Task<void> WaitAllWrites();
  // Waits until every plain data write submitted up to now has completed,
  // whoever submitted it (sync_inodes_sb waiting on pages under writeback).
  sim::Task<void> WaitPlainWrites();
  // With `ordered`: page `p`, whose DATA_WRITE record has sequence number
  // `seq`, waits in a WriteBatcher for its write's submission.
  void OrderedUnsubmitted(const Page* p, uint64_t seq) {
    ordered_unsubmitted_[p] = seq;
    ordered_unsubmitted_seqs_.insert(seq);
  }
  // With `ordered`: waits until the data block of every DATA_WRITE record
  // below `key` is submitted, then until every file-data write (plain or
  // cleaning's) submitted up to then has completed (ordered mode).
  sim::Task<void> WaitOrderedWrites(uint64_t key);
  // The writes a checkpoint guarantees (f2fs_is_cp_guaranteed): node, meta
  // and checkpoint blocks, directory data (dentries) and data moved by
  // cleaning; not plain file data, which only fsync makes durable.
  static bool CpGuaranteed(Io kind) { return kind != Io::kData; }
  // Waits until every CpGuaranteed write in flight now has completed, and
  // every plain data write in flight to a block no longer valid (the page
  // was rewritten elsewhere or truncated since). One caller at a time.
  sim::Task<void> WaitCheckpointWrites();
  // Woken at every write completion (page writeback ends): wait on it for a
  // condition a completion changes (e.g. a file's writes in flight).
  vfs::WaitQueue& write_done_wq() { return wb_wq_; }

  // ---- Flash pages (a fixed-placement device of pages of several blocks).
  // Block `a` is in the main area and not the last block of its flash page.
  bool EndsInsideFlashPage(BlockAddr a) const {
    return blocks_per_page_ > 1 && layout_.InMain(a) && (a.v + 1 - layout_.main_blkaddr) % blocks_per_page_ != 0;
  }
  uint32_t blocks_per_page() const { return blocks_per_page_; }
  // A batch of main-area blocks [start, start + contents.size()) that ends
  // inside a page its log has not allocated further is padded to the page
  // end (SegmentManager::PadStripe; zero-filled blocks, never valid,
  // counted in pad_blocks), and a node written last, whose footer chained
  // to the padded slot, is re-chained to where its log continues.
  void PadToFlashPage(BlockAddr start, std::vector<BlockPtr>& contents, std::vector<Page*>& pages,
                      std::vector<uint32_t>& inos, std::vector<uint64_t>& seqs);

  // ---- State for the rest of the model.
  uint64_t max_io() const { return cfg_.max_io.value; }
  // Any request of any kind in flight.
  bool AnyInFlight() const { return ios_in_flight_ > 0; }
  // is_inflight_io's I/O part: reads, plain data writes, a cache flush
  // queued or in flight, or (with `count_trims`) trims in flight.
  bool InflightIo(bool count_trims) const {
    if (reads_in_flight_ > 0 || !plain_writes_.empty()) return true;
    if (flush_inflight_ || !flush_waiters_next_.empty()) return true;
    return count_trims && trims_in_flight_ > 0;
  }
  // With regions: blocks read in flight, and blocks written and completed,
  // in `region`.
  uint64_t region_reads(uint32_t region) const { return region_reads_[region]; }
  uint64_t region_writes_done(uint32_t region) const { return region_writes_done_[region]; }
  IoStats& stats() { return stats_; }
  const IoStats& stats() const { return stats_; }

 private:
  IoReq* AllocReq();
  void FreeReq(IoReq* r);
  // Sends a write to the Image and the device.
  void SendWrite(IoReq* r, const std::vector<BlockPtr>& contents);
  // Sends the held writes no issued discard covers any more (in order).
  void ReleaseHeldWrites();
  void StartFlush();
  // Adds `delta` per block of [start, start + n) in the main area to
  // counts[region of the block].
  void CountByRegion(BlockAddr start, uint32_t n, int64_t delta, std::vector<uint64_t>& counts) const;
  void OnBlockComplete(ssd::BlockRequest* req) override;

  const F2fsConfig& cfg_;
  const Layout& layout_;
  sim::EventQueue* q_;
  ssd::BlockDevice* dev_;
  Image* image_;
  SegmentManager* sm_;
  DiscardQueue* dq_;
  vfs::PageCache* cache_;
  Host* host_;
  sim::Counter* discard_write_waits_;
  const bool ordered_;
  const uint32_t blocks_per_page_;
  bool in_order_ = false;
  uint64_t zone_area_block_ = 0;  // zoned device: the first zone's first block
  uint64_t zone_blocks_ = 0;      // zoned device: blocks per zone (0: not zoned)
  bool dead_ = false;

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
  vfs::WaitQueue cp_io_wq_;  // WaitCheckpointWrites' waiter
  uint64_t reads_in_flight_ = 0;
  uint64_t trims_in_flight_ = 0;
  uint64_t warm_node_seq_ = 0;
  std::set<uint64_t> warm_node_inflight_;
  uint64_t ios_in_flight_ = 0;
  vfs::WaitQueue io_wq_;  // WaitAllWrites' and WaitPlainWrites' waiters
  vfs::WaitQueue wb_wq_;  // page writeback completions
  bool flush_inflight_ = false;
  std::vector<sim::Completion<bool>*> flush_waiters_cur_;
  std::vector<sim::Completion<bool>*> flush_waiters_next_;
  std::deque<IoReq*> held_writes_;  // writes waiting for an issued discard of their blocks
  std::vector<uint64_t> region_reads_;        // with regions: blocks read in flight per region
  std::vector<uint64_t> region_writes_done_;  // with regions: blocks written and completed per region
  IoStats stats_;
};

// Merges contiguous block writes into requests of at most max_io bytes
// (flushed when full, when a block does not follow, and at destruction).
//
// Order on an in-order device (IoManager::in_order). The kernel adds every
// block to its log's one merged bio as it allocates it (do_write_page:
// f2fs_allocate_data_block, then f2fs_submit_page_write), so the device
// sees each log's blocks in allocation order whoever wrote them. A
// WriteBatcher is one writer's: if its writer waits (a node read, CPU time,
// a lock) holding blocks, another writer of the same log may allocate the
// blocks after them and submit first, and a device that takes writes only
// at a block's write pointer refuses the later ones. So a writer calls
// BeforeWait() before every wait inside a batch: on an in-order device the
// batch is submitted then (padded to the flash page end where the log has
// allocated no further); elsewhere it stays, so merged requests are as the
// kernel's. Padding costs flash space, so on an in-order device the
// cleaner reads what it needs before it batches (GcMigrator) and early
// submissions stay rare (fs.io.submits_before_wait). In a build with DCHECKs, Add and Flush check that no event ran
// since the batch's first block on an in-order device.
class WriteBatcher {
 public:
  WriteBatcher(IoManager* io, Io kind, IoBatch* batch) : io_(io), kind_(kind), batch_(batch) {}
  ~WriteBatcher() { Flush(); }
  // `ino`: the file whose data block this is; `node_seq`: a warm-node
  // write's sequence number (0: neither).
  void Add(BlockAddr a, BlockPtr content, Page* page, Nid ino = kNullNid, uint64_t node_seq = 0);
  void Flush();
  // Before the writer may wait (see above).
  void BeforeWait() {
    if (!io_->in_order() || contents_.empty()) return;
    io_->stats().submits_before_wait.Inc();
    Flush();
  }
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
  // Blocks added from now on are written with FUA (durable on completion).
  void set_fua(bool fua) {
    if (fua != fua_) Flush();
    fua_ = fua;
  }

 private:
  IoManager* io_;
  Io kind_;
  bool gc_ = false;
  bool fua_ = false;
  IoBatch* batch_;
  BlockAddr start_;
  uint64_t first_event_ = 0;  // events processed when the batch's first block was added (DCHECKs)
  std::vector<BlockPtr> contents_;
  std::vector<Page*> pages_;
  std::vector<uint32_t> inos_;
  std::vector<uint64_t> seqs_;
};

}  // namespace fs::f2fs
