// StaticBlockFtl: the simplified static block-mapped FTL of ParaFS (the
// "S-FTL", ATC'16), ftl.kind: static_block.
//
// The file system above sees the flash layout and does its own placement,
// cleaning and wear spreading; this FTL keeps only a fixed block mapping,
// erases, and bad/worn-block retirement. It never copies a page (no FTL GC).
//
// Mapping. Logical block b = Lpn / pages_per_block (page p = Lpn %
// pages_per_block) lives in plane seq[b % planes] at block slot
// s = b / planes of that plane, where seq is the plane order of
// ftl.stripe_order (StripeSequence; the default CWDP is channel-first: b,
// b+1, ... visit channel 0, 1, ..., then the next chip (way), die and
// plane), so consecutive logical blocks spread over the channels and a
// file system that knows the layout can stripe. Slot s starts on physical
// block s of the plane; the last `spare` blocks of each plane
// (ceil(ftl.static_block.spare x blocks_per_plane)) are spares, kept erased.
// PlaceOf (FixedPlacement) gives the current place; it is a bijection from
// logical blocks onto the in-service blocks.
//
// Capacity: planes x (blocks_per_plane - spares per plane) x pages_per_block
// logical pages (every block but the spares; ftl.op is not used).
//
// Contract (per logical block, in flash pages):
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
// - No GC: the FTL never needs free space, so writes never wait for GC.
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
// are marked programmed in order (whole blocks, then part of the last one);
// random overwrites would break the contract, so validate refuses
// precondition.random_overwrites > 0 when preconditioning is on.
//
// Stats under the given group (names shared with the page FTL where they
// mean the same; units in parentheses): host_reads, host_writes,
// unmapped_reads (pages); gc_copies, gc_reads (pages) and gc_runs_bg,
// gc_runs_fg (victims), always 0: this FTL never copies; erases (blocks);
// trims (pages), trim_commands; write_stalls (pages), write_stall_time (ns)
// for writes that waited for their block's erase; free_blocks (gauge:
// erased blocks ready for page 0, spares included); write_amplification
// (formula, 1 once anything is written); erase_count_min/max/mean/stddev
// (over the in-service blocks); logical_pages; precondition.host_writes,
// gc_copies, write_amplification. Its own: write_errors.out_of_order,
// write_errors.overwrite (pages refused), trim_erases (whole-block trims
// that erased), writes_dropped_by_trim (pages), retired_blocks,
// spare_blocks_free (gauge), blocks_past_limit.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
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

  // FixedPlacement
  uint64_t logical_blocks() const override { return logical_blocks_; }
  FlashPlace PlaceOf(uint64_t logical_block) const override;

  void OnFlashComplete(flash::FlashCommand* cmd) override;

  // ---- inspection (tests, reports)
  // Next page to program in logical block b (pages_per_block when full).
  uint32_t write_pointer(uint64_t b) const { return blocks_[b].write_ptr; }
  // Whether a read of l would go to flash.
  bool Mapped(Lpn l) const;
  // Flat physical block id (flash::Geometry numbering) of logical block b.
  uint64_t PhysicalBlockOf(uint64_t b) const;
  uint32_t EraseCount(uint64_t physical_block) const { return erase_count_[physical_block]; }
  uint32_t spares_per_plane() const { return spares_; }
  // No op, erase or waiting write in flight.
  bool Idle() const;
  uint64_t host_writes() const { return host_writes_.value(); }
  uint64_t erases() const { return erases_.value(); }
  uint64_t retired_blocks() const { return retired_.value(); }
  uint64_t write_errors(FtlStatus s) const;

 private:
  enum class CmdKind : uint8_t { kRead = 1, kProgram, kErase };
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
    uint64_t block = 0;  // logical block
  };

  uint32_t PlaneOf(uint64_t b) const { return plane_seq_[b % planes_]; }
  uint32_t AcquireSlot();
  void IssueProgram(FtlOp* op, uint64_t b);
  void CompleteWithoutFlash(FtlOp* op);
  void OnNoFlashDue();
  void TrimWholeBlock(uint64_t b);
  void MaybeErase(uint64_t b);
  void OnEraseDone(uint64_t b);
  void Retire(uint64_t b);
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
  uint64_t logical_blocks_ = 0;
  std::vector<uint32_t> plane_seq_;       // stripe order: position -> plane id
  std::vector<BlockState> blocks_;        // per logical block
  std::vector<uint64_t> trimmed_;         // per logical page: unmapped by a partial trim (bitmap)
  std::vector<uint32_t> erase_count_;     // per physical block
  std::vector<uint8_t> past_limit_;       // per physical block: in service past erase_limit
  std::vector<std::vector<uint32_t>> free_spares_;  // per plane: spare block indices, used from the back
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
};

}  // namespace ftl
