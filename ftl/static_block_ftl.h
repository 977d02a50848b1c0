// StaticBlockFtl: the simplified static block-mapped FTL of ParaFS (the
// "S-FTL", ATC'16), ftl.kind: static_block.
//
// The file system above sees the flash layout and does its own placement,
// cleaning and wear spreading; this FTL keeps only a fixed block mapping,
// erases, and bad/worn-block retirement. It never copies a page of a fixed
// block (no FTL GC there). Optionally the start of the logical space is a
// small page-mapped area with its own GC, for the file system's metadata
// updated in place (see "Page-mapped area" below).
//
// Mapping. Block slots are dealt out in stripe order: position k is plane
// seq[k % planes], block slot k / planes of that plane, where seq is the
// plane order of ftl.stripe_order (StripeSequence; the default CWDP is
// channel-first: k, k+1, ... visit channel 0, 1, ..., then the next chip
// (way), die and plane). Slot s starts on physical block s of the plane;
// the last `spare` blocks of each plane (ceil(ftl.static_block.spare x
// blocks_per_plane)) are spares, kept erased. Positions [0, pool) form the
// page-mapped area's pool (none by default); fixed logical block b =
// Lpn / pages_per_block >= fixed_from() (page p = Lpn % pages_per_block)
// takes position b - fixed_from() + pool, so consecutive fixed logical
// blocks spread over the channels and a file system that knows the layout
// can stripe. With no page-mapped area, logical block b is at position b.
// PlaceOf (FixedPlacement) gives the current place; it is a bijection from
// the fixed logical blocks onto the in-service blocks outside the pool.
//
// Capacity: (planes x (blocks_per_plane - spares per plane) - pool_spare)
// x pages_per_block logical pages: every block but the retirement spares
// and the page-mapped pool's extra (cleaning) blocks; ftl.op is not used.
//
// Page-mapped area (ftl.static_block.page_mapped bytes, rounded up to whole
// logical blocks: area_blocks = ceil(page_mapped / (page_size x
// pages_per_block)) = fixed_from(); 0 = none). Its pool is area_blocks +
// pool_spare physical blocks (pool_spare = ceil(page_mapped_spare x
// area_blocks), default 50 %, and at least kMinPoolSpare, the fewest with
// which greedy GC always finds a victim),
// at stripe positions [0, pool), so the area's pages spread over the
// channels too. Within the area:
// - A write of any page, in any order, overwrite included, is placed out of
//   place at the next page of an open host block; the old copy becomes
//   invalid. Never refused. With page_mapped_lanes L > 1 there are L open
//   host blocks (lanes), opened on planes no other open lane uses while a
//   free block allows, and successive writes take them in turn, page by
//   page, so the area's writes stripe over channels as a page-mapped FTL's
//   do; with L = 1 the area fills one block at a time (one channel). Reads follow the page map (an unmapped
//   page completes after unmapped_read_latency without flash).
// - Trim unmaps the range's pages (no erase; cleaning reclaims them).
// - Greedy GC: while fewer than kPoolBgFreeBlocks pool blocks are free, or
//   host writes wait, it picks the full block (all programs completed) with
//   the fewest valid pages (ties: lowest pool index), reads each valid page
//   and programs it to the pool's open GC block (flash commands of source
//   kGc, counted in gc_reads / gc_copies, so write_amplification includes
//   them), then erases the victim once no read of it is in flight. Host
//   writes may open a new block only while more than kPoolGcReserve pool
//   blocks are free; otherwise they wait, in submission order, for GC
//   (write_stalls). With pool_spare >= kMinPoolSpare a victim with a stale
//   page always exists when writes wait, so writes never fail for space.
// - Pool blocks wear and are retired like fixed blocks (below).
// - The area is meant to be small (victim selection scans the pool).
//
// Contract (per fixed logical block, in flash pages):
// - Writes program pages in order: a write of page p succeeds only if p is
//   the block's write pointer (the next page never written since the last
//   erase); then the pointer moves to p + 1. A write of p < pointer is an
//   overwrite without erase (FtlStatus::kOverwrite), of p > pointer skips
//   pages (kWriteOutOfOrder). Either completes at once (after
//   unmapped_read_latency, the table lookup) with the error, nothing
//   programmed, the pointer unchanged. Never silently remapped. The order
//   is the submission order: a file system may keep several pages of a
//   block in flight as long as it submits them in page order.
// - Whole pages only: the FTL has no notion of sectors, so a write always
//   programs the whole flash page; the host interface refuses sub-page
//   writes on a device with fixed placement (ssd/ssd.h), and must not
//   buffer its writes.
// - Reads of a page below the pointer and not trimmed read flash; reads of
//   any other page (never written, trimmed, erased) complete after
//   unmapped_read_latency without touching flash.
// - Trim of a range covering a whole logical block erases it: the block
//   reads as unmapped at once and its pointer is back at page 0, so it may
//   be written from page 0 immediately; the erase (tBERS on the array, a
//   kGc-source command) is issued once the block's flash commands in flight
//   have completed, and writes accepted meanwhile wait for it (counted as
//   write_stalls). Writes still waiting from before the trim are completed
//   without programming (their data was trimmed before it reached flash;
//   counted as writes_dropped_by_trim). A block with nothing programmed
//   since its last erase is not erased again.
// - Trim of part of a block only unmaps the written pages in the range:
//   they read as unmapped, but stay programmed, so they cannot be written
//   again until a whole-block trim erases the block (the pointer does not
//   move back). Unwritten pages in the range are untouched.
// - No GC: writes to fixed blocks never wait for GC (only for their own
//   block's erase).
//
// Retirement. The flash model has no bad blocks or endurance failures, so
// retirement is triggered only by the configured endurance: when an erase
// brings a block's erase count to ftl.static_block.erase_limit (> 0), the
// block is retired and its logical block moves to a free spare of the same
// plane (erased, so no data moves: the block was just erased). PlaceOf
// then reports the spare; channel, chip, die and plane stay the same. With
// no spare left in the plane the worn block stays in service, counted as
// blocks_past_limit.
//
// Precondition: sequential fill only. fill_fraction of the logical pages
// are marked programmed in order (whole blocks, then part of the last one;
// the area's pages go to the pool's blocks in order, as host writes would);
// random overwrites would break the contract, so validate refuses
// precondition.random_overwrites > 0 when preconditioning is on.
//
// Stats under the given group (names shared with the page FTL where they
// mean the same; units in parentheses): host_reads, host_writes,
// unmapped_reads (pages); gc_copies, gc_reads (pages) and gc_runs_bg,
// gc_runs_fg (victims), always 0: this FTL never copies; erases (blocks);
// trims (pages), trim_commands; write_stalls (pages), write_stall_time (ns)
// for writes that waited for their block's erase or for the area's GC;
// free_blocks (gauge: erased blocks ready for page 0, spares and free pool
// blocks included); write_amplification (formula, (host + GC programs) /
// host programs); erase_count_min/max/mean/stddev (over the in-service
// blocks, pool included); logical_pages; precondition.host_writes,
// gc_copies, write_amplification. gc_* and erases include the area's GC;
// they are 0 without an area, except erases. Its own:
// write_errors.out_of_order, write_errors.overwrite (pages refused),
// trim_erases (whole-block trims that erased), writes_dropped_by_trim
// (pages), retired_blocks, spare_blocks_free (gauge), blocks_past_limit;
// and, only with a page-mapped area (without one the stats are exactly
// those of the S-FTL before it had one): page_mapped.host_writes, gc_reads,
// gc_copies, gc_stale_copies (pages), gc_runs (victims), erases (blocks),
// write_stalls (pages), free_blocks, valid_pages (gauges), pool_blocks,
// logical_blocks.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flash/flash_array.h"
#include "ftl/fixed_placement.h"
#include "ftl/ftl.h"
#include "ftl/ftl_config.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/units.h"

namespace ftl {

// ftl.static_block.*: the kind's own keys.
struct StaticBlockConfig {
  // Fraction of each plane's blocks kept as spares for retirement.
  sim::Ratio spare{0.02};
  // Erases after which a block is retired (0: never).
  uint32_t erase_limit = 3000;
  // Bytes at the start of the logical space mapped page by page (rounded
  // up to whole logical blocks); 0: none.
  sim::Bytes page_mapped{0};
  // The pool's extra blocks, as a fraction of the area's logical blocks
  // (rounded up).
  sim::Ratio page_mapped_spare{0.5};
  // Open host blocks of the area written in turn (1: one at a time).
  uint32_t page_mapped_lanes = 1;

  static void Describe(sim::Schema<StaticBlockConfig>& s);
};

class StaticBlockFtl final : public Ftl, public FixedPlacement, public flash::FlashClient {
 public:
  // The kind's checks (errors name the full key, "ftl.static_block.spare:
  // ..."): the keys of the page-mapped FTL that this one does not use are
  // refused when set to other than their defaults, as is a precondition
  // with random overwrites.
  static sim::Status Validate(const FtlConfig& cfg, const flash::Geometry& g);
  // Spare blocks per plane: ceil(spare x blocks_per_plane).
  static uint32_t SparesPerPlane(const FtlConfig& cfg, const flash::Geometry& g);
  // Logical blocks of the page-mapped area: ceil(page_mapped / block bytes).
  static uint64_t AreaBlocks(const FtlConfig& cfg, const flash::Geometry& g);
  // The pool's extra blocks: max(ceil(page_mapped_spare x AreaBlocks),
  // kMinPoolSpare + page_mapped_lanes - 1); 0 without an area.
  static uint64_t PoolSpare(const FtlConfig& cfg, const flash::Geometry& g);

  // Pool blocks host writes leave free for GC: one, enough for the copies
  // of one victim (it has fewer valid pages than a block).
  static constexpr uint32_t kPoolGcReserve = 1;
  // Background GC runs while fewer pool blocks than this are free.
  static constexpr uint32_t kPoolBgFreeBlocks = kPoolGcReserve + 1;
  // Fewest extra pool blocks: the free blocks background GC keeps
  // (kPoolBgFreeBlocks), the open host and GC blocks, and one more, so the
  // full blocks outnumber the area's logical blocks and one of them always
  // has a stale page (greedy GC always frees space). Each host lane beyond
  // the first holds one more block open, so needs one more.
  static constexpr uint32_t kMinPoolSpare = kPoolBgFreeBlocks + 2 + 1;
  static uint64_t LogicalPages(const FtlConfig& cfg, const flash::Geometry& g);
  static uint64_t MemoryBytes(const FtlConfig& cfg, const flash::Geometry& g);

  // REQUIRES: Validate(cfg, array->geometry()).ok(). `array` and `queue`
  // must outlive this object.
  StaticBlockFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue, const sim::StatGroup& stats);
  ~StaticBlockFtl() override;

  // Ftl
  uint64_t logical_pages() const override { return logical_blocks_ * ppb_; }
  void Submit(FtlOp* op) override;
  void Trim(Lpn first, uint64_t count) override;
  void Precondition(const PreconditionSpec& spec) override;
  const FixedPlacement* fixed_placement() const override { return this; }
  // The page-mapped area's mapping below fixed_from(); above, the logical
  // block's physical block at the page's offset once written (below the
  // write pointer, not trimmed).
  flash::Ppn Locate(Lpn l) const override;

  // FixedPlacement
  uint64_t logical_blocks() const override { return logical_blocks_; }
  uint64_t fixed_from() const override { return area_blocks_; }
  FlashPlace PlaceOf(uint64_t logical_block) const override;
  int64_t WrittenPages(uint64_t b) const override { return blocks_[b].write_ptr; }

  // For an FTL built on this one (the ZNS device, ftl/zns_ftl.h); unused
  // otherwise. `fn` (null: none) is called at the end of each completed
  // erase of fixed logical block b, from the flash completion event.
  void SetEraseDoneHook(std::function<void(uint64_t b)> fn) { erase_done_hook_ = std::move(fn); }
  // Fixed logical block b has an erase asked for (by a whole-block trim) or
  // running.
  bool ErasePending(uint64_t b) const { return blocks_[b].erase_needed || blocks_[b].erasing; }
  // Completes `op` (its status as set) after unmapped_read_latency without
  // flash, through op->client, as the FTL's own refusals complete.
  void CompleteLater(FtlOp* op) { CompleteWithoutFlash(op); }

  void OnFlashComplete(flash::FlashCommand* cmd) override;

  // ---- inspection (tests, reports)
  // Next page to program in fixed logical block b (pages_per_block when full).
  uint32_t write_pointer(uint64_t b) const { return blocks_[b].write_ptr; }
  // Whether a read of l would go to flash.
  bool Mapped(Lpn l) const;
  // Flat physical block id (flash::Geometry numbering) of fixed logical
  // block b; for b < fixed_from(), of pool block b (see PlaceOf).
  uint64_t PhysicalBlockOf(uint64_t b) const;
  // ---- the page-mapped area
  uint64_t area_pages() const { return area_blocks_ * ppb_; }
  uint64_t pool_blocks() const { return pool_.size(); }
  // Flat physical block id of pool block i.
  uint64_t PoolPhysicalBlock(uint64_t i) const { return uint64_t{pool_[i].plane} * g_.blocks_per_plane + pool_[i].slot_block; }
  // Flat physical page of area page l, or an invalid Ppn when unmapped.
  flash::Ppn AreaPpnOf(Lpn l) const;
  uint64_t pool_free_blocks() const { return pool_free_.size(); }
  uint64_t gc_copies() const { return gc_copies_.value(); }
  // "" if the area's page map, reverse map and valid counts agree;
  // otherwise the first inconsistency found.
  std::string CheckArea() const;
  uint32_t EraseCount(uint64_t physical_block) const { return erase_count_[physical_block]; }
  uint32_t spares_per_plane() const { return spares_; }
  // No op, erase or waiting write in flight.
  bool Idle() const;
  uint64_t host_writes() const { return host_writes_.value(); }
  uint64_t erases() const { return erases_.value(); }
  uint64_t retired_blocks() const { return retired_.value(); }
  uint64_t write_errors(FtlStatus s) const;

 private:
  enum class CmdKind : uint8_t { kRead = 1, kProgram, kErase, kAreaRead, kAreaProgram, kGcRead, kGcProgram, kPoolErase };
  static uint64_t Tag(CmdKind k, uint32_t index) { return (static_cast<uint64_t>(k) << 56) | index; }

  struct BlockState {
    uint32_t slot_block = 0;   // physical block index within its plane
    uint32_t write_ptr = 0;    // next page to program
    uint32_t in_flight = 0;    // host reads/programs submitted to flash
    bool dirty = false;        // a program was issued since the last erase
    bool erase_needed = false; // a whole-block trim asked for an erase not yet issued
    bool erasing = false;      // erase command on the array
    FtlOp* wait_head = nullptr;  // accepted writes waiting for the erase
    FtlOp* wait_tail = nullptr;
  };
  struct Slot {
    flash::FlashCommand cmd;
    FtlOp* op = nullptr;
    uint64_t block = 0;  // logical block; for the area's commands, the pool block
    uint32_t src = 0;    // GC read: the pool page copied
    uint32_t lpn = 0;    // GC read: the area page it holds
  };
  // A block of the page-mapped area's pool.
  enum class PoolState : uint8_t { kFree, kOpen, kFull, kVictim, kErasing };
  struct PoolBlock {
    uint32_t plane = 0;
    uint32_t slot_block = 0;  // physical block index within its plane
    uint32_t write_ptr = 0;   // next page to program
    uint32_t valid = 0;       // pages holding the newest copy of an area page
    uint32_t programs = 0;    // programs submitted and not completed
    uint32_t reads = 0;       // reads (host or GC) submitted and not completed
    PoolState state = PoolState::kFree;
  };
  static constexpr uint32_t kNoPage = UINT32_MAX;
  static constexpr uint32_t kNoBlock = UINT32_MAX;

  // Stripe position of fixed logical block b (>= area_blocks_).
  uint64_t PositionOf(uint64_t b) const { return b - area_blocks_ + pool_.size(); }
  uint32_t PlaneOf(uint64_t b) const { return plane_seq_[PositionOf(b) % planes_]; }
  uint32_t AcquireSlot();
  void IssueProgram(FtlOp* op, uint64_t b);
  void CompleteWithoutFlash(FtlOp* op);
  void OnNoFlashDue();
  void TrimWholeBlock(uint64_t b);
  void MaybeErase(uint64_t b);
  void OnEraseDone(uint64_t b);
  void Retire(uint64_t b);
  // Moves a block that reached the erase limit to a free spare of `plane`:
  // updates *slot_block, or counts it past the limit when none is left.
  void RetireSlot(uint32_t plane, uint32_t* slot_block);
  // The page-mapped area.
  void SubmitArea(FtlOp* op);
  bool AreaHostReady() const;
  void IssueAreaWrite(FtlOp* op);
  // Next page of the open block *open, taking a free block if it is full
  // or none. REQUIRES: a free block if one is needed.
  uint32_t AllocPoolPage(uint32_t* open);
  // The open-block slot of the lane the next host write of the area takes
  // (lanes in turn, skipping those that can neither write nor open).
  // REQUIRES: AreaHostReady().
  uint32_t* NextHostLane();
  // Points area page l at pool page p (kNoPage: unmaps it), invalidating
  // the old copy.
  void MapArea(uint32_t l, uint32_t p);
  void TrimArea(uint64_t first, uint64_t end);
  void MaybeStartGc();
  void PumpGc();
  void MaybeErasePoolVictim();
  void OnAreaDone(CmdKind kind, Slot& s, FtlOp* op);
  void OnGcReadDone(uint32_t slot_index);
  void OnPoolEraseDone(uint32_t pool_block);
  void DrainAreaWaiting();
  // A pool block whose last page was placed and whose programs completed.
  bool PoolCandidate(uint32_t i) const {
    const PoolBlock& pb = pool_[i];
    return pb.state == PoolState::kFull && pb.programs == 0;
  }
  void PreconditionArea(uint64_t pages);
  // An erased logical block, ready for page 0.
  static bool IsFree(const BlockState& bs) { return bs.write_ptr == 0 && !bs.erase_needed && !bs.erasing; }
  // Adjusts the free count after bs changed from was_free.
  void Account(const BlockState& bs, bool was_free);
  void UpdateGauges();
  void RegisterStats(const sim::StatGroup& stats);

  const FtlConfig cfg_;
  const flash::Geometry g_;
  flash::FlashArray* array_;
  sim::EventQueue* queue_;
  const uint32_t ppb_;
  const uint32_t planes_;
  const uint32_t spares_;
  const uint32_t erase_limit_;
  std::function<void(uint64_t)> erase_done_hook_;  // SetEraseDoneHook
  uint64_t logical_blocks_ = 0;
  std::vector<uint32_t> plane_seq_;       // stripe order: position -> plane id
  std::vector<BlockState> blocks_;        // per logical block
  std::vector<uint64_t> trimmed_;         // per logical page: unmapped by a partial trim (bitmap)
  std::vector<uint32_t> erase_count_;     // per physical block
  std::vector<uint8_t> past_limit_;       // per physical block: in service past erase_limit
  std::vector<std::vector<uint32_t>> free_spares_;  // per plane: spare block indices, used from the back
  // The page-mapped area: logical blocks [0, area_blocks_).
  uint64_t area_blocks_ = 0;
  std::vector<PoolBlock> pool_;
  std::vector<uint32_t> area_map_;   // per area page: pool page (block x ppb + page) or kNoPage
  std::vector<uint32_t> pool_rmap_;  // per pool page: the area page whose newest copy it is, or kNoPage
  std::deque<uint32_t> pool_free_;   // free pool blocks, oldest erase first
  std::vector<uint32_t> host_open_;  // per lane: its open host block, kNoBlock none
  uint32_t next_lane_ = 0;            // the lane the next area write tries first
  uint32_t gc_open_ = kNoBlock;
  uint64_t area_valid_ = 0;
  FtlOp* area_wait_head_ = nullptr;  // area writes waiting for GC, in submission order
  FtlOp* area_wait_tail_ = nullptr;
  bool gc_active_ = false;
  uint32_t gc_victim_ = kNoBlock;
  uint32_t gc_scan_ = 0;       // next page of the victim to look at
  uint32_t gc_in_flight_ = 0;  // copies (read then program) in flight
  uint64_t free_blocks_count_ = 0;        // logical blocks IsFree
  uint64_t spares_free_count_ = 0;

  std::deque<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  uint64_t in_flight_ = 0;
  uint64_t waiting_ = 0;
  uint64_t erasing_ = 0;

  // Ops completing without flash (unmapped reads, refused writes, writes
  // dropped by a trim), in submission order.
  FtlOp* noflash_head_ = nullptr;
  FtlOp* noflash_tail_ = nullptr;
  sim::MemberEvent<StaticBlockFtl, &StaticBlockFtl::OnNoFlashDue> noflash_event_{this, sim::Priority::kCompletion};

  sim::Counter host_reads_, host_writes_, unmapped_reads_, gc_copies_, gc_reads_, gc_runs_bg_, gc_runs_fg_;
  sim::Counter erases_, trims_, trim_commands_, write_stalls_, trim_erases_, dropped_by_trim_;
  sim::Counter errors_out_of_order_, errors_overwrite_, retired_, past_limit_count_;
  sim::Histogram write_stall_time_;
  sim::Gauge free_blocks_, spare_blocks_free_;
  sim::Gauge pre_host_writes_, pre_gc_copies_, pre_wa_;
  sim::Counter area_host_writes_, area_gc_reads_, area_gc_copies_, area_gc_stale_, area_gc_runs_, area_erases_,
      area_write_stalls_;
  sim::Gauge area_free_blocks_, area_valid_pages_;
};

}  // namespace ftl
