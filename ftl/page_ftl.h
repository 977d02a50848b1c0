// PageFtl: the timed page-mapped FTL on a FlashArray and the event queue.
//
// Host reads: the mapped page is read from flash (CmdSource::kHost); a read
// of an unmapped page completes after unmapped_read_latency without flash.
// Host writes: a page is placed by the allocation scheme (FtlCore), its
// program submitted, and the FtlOp completes when the program completes.
// If the chosen group cannot take a host page without eating into the GC
// reserve, the write waits in that group's FIFO queue (foreground GC) until
// GC frees a unit; later writes to other groups proceed. The group is the
// allocation scheme's unless it is at its data cap (FtlCore::HostGroup); a
// waiting write whose group reached the cap meanwhile moves to another
// group when its turn comes.
//
// GC, one state machine per group (plane, or all planes with superblocks):
//   idle --free units < bg threshold, or writes waiting--> select victim
//   --> relocate: up to gc_pages_in_flight x planes-per-group copies in
//       flight, each a GC read of a valid page then (if the page is still
//       valid when the read completes) a GC program into the group's GC
//       open unit; the mapping moves when the program is submitted
//   --> all copies done: erase every block of the unit --> free pool,
//       release waiting writes, and start again if still needed.
// A run is counted foreground if writes were waiting when it started. With
// gc_max_per_die, at most that many background runs (and wear-leveling
// moves) are active on one die's planes; a held-back plane retries when a
// run on its die ends (the die's other planes first); foreground runs are
// never held back.
// With gc_preemptible, background GC yields to host reads between page
// copies: while a host read is outstanding on a die (submitted to the array,
// not completed), a background run or wear-leveling move of a group on that
// die starts no GC sub-operation there: no new page read, no program of a
// page already read (it waits in the controller), no erase; commands
// already submitted finish. The run resumes when the die has no host read left. A run is not
// preemptible while host writes wait for its group or the group's free units
// are at or below the GC reserve (gc_fg_threshold, the hard threshold):
// then it resumes at once and runs to the end, so foreground GC is never
// starved. (The preemption point before a page read and the exemption of
// foreground GC follow SimpleSSD's PreemptibleGC; the hard threshold below
// which GC is not preemptible follows MQSim's GC_Hard_Threshold.) Each yield
// of a run counts once in gc_preemptions.
// Copyback is not used: data always crosses the channel, so a copy may land
// on any plane of the group and is charged channel time.
//
// Mapping cache (ftl.map_cache, see ftl_core.h): a host op first looks up
// its entry; on a miss whose translation page is on flash it reads that
// page (CmdSource::kMeta) and proceeds when the read completes. Translation
// page updates (dirty evictions at once; GC's batched at the end of each GC
// run) read the old version and program the new one (kMeta) in the
// background: no host op waits for them.
//
// Commands are pooled (no allocation per op once the pools reach their peak
// size). Completions are delivered from the array's completion events.
//
// Stats under the given group (units in parentheses): host_reads,
// host_writes, unmapped_reads, gc_reads, gc_copies, gc_stale_copies (pages);
// gc_runs_bg, gc_runs_fg; erases (blocks); trims (pages), trim_commands;
// write_stalls, write_stall_time (ns histogram); with gc_preemptible
// gc_preemptions; write_amplification
// (formula (host + gc programs) / host programs); free_blocks (gauge);
// erase_count_min/max/mean/stddev (formulas over blocks);
// precondition.host_writes/gc_copies/write_amplification. With a mapping
// cache also map_cache.hits, misses, hit_ratio, translation_reads,
// translation_writes, translation_gc_copies, translation_pages, and
// write_amplification counts translation writes (and with wear leveling
// wear_leveling.runs, copies, erase_count_spread):
// (host + GC + translation programs) / host programs.
// Counters cover timed operation only; Precondition's work is reported under
// precondition.*.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ftl/ftl.h"
#include "ftl/ftl_config.h"
#include "ftl/ftl_core.h"
#include "sim/event_queue.h"
#include "flash/flash_array.h"
#include "sim/stats.h"
#include "sim/status.h"

namespace ftl {

class PageFtl final : public Ftl, public flash::FlashClient {
 public:
  // REQUIRES: cfg.Validate(array->geometry()).ok(). `array` and `queue`
  // must outlive this object.
  PageFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue, const sim::StatGroup& stats);
  ~PageFtl() override;

  uint64_t logical_pages() const override { return core_.logical_pages(); }
  void Submit(FtlOp* op) override;
  void Trim(Lpn first, uint64_t count) override;
  void Precondition(const PreconditionSpec& spec) override;
  flash::Ppn Locate(Lpn l) const override { return core_.Lookup(l); }
  void PrefetchEntry(Lpn l) const override { core_.PrefetchEntry(l); }
  void PrefetchRetire(Lpn l) const override { core_.PrefetchRetire(l); }
  void OnFlashComplete(flash::FlashCommand* cmd) override;

  // No host op in flight and no GC running.
  bool Idle() const;
  const FtlCore& core() const { return core_; }
  // Background GC runs (incl. wear-leveling moves) active on the planes of
  // `die` now; counted only with ftl.gc_max_per_die set (else 0).
  // A GC run (or wear-leveling move) started in the background is active
  // in `group` (plane).
  bool BackgroundGcActive(uint32_t group) const { return groups_[group].active && groups_[group].background; }
  uint32_t background_gc_on_die(uint32_t die) const { return die_bg_gc_.empty() ? 0 : die_bg_gc_[die]; }
  std::string CheckConsistency() const { return core_.CheckConsistency(); }

  // Timed-operation counters (see header comment).
  uint64_t host_reads() const { return host_reads_.value(); }
  uint64_t host_writes() const { return core_.counters().host_writes.value(); }
  uint64_t gc_copies() const { return core_.counters().gc_copies.value(); }
  uint64_t gc_stale_copies() const { return gc_stale_copies_.value(); }
  uint64_t gc_runs_bg() const { return gc_runs_bg_.value(); }
  uint64_t gc_runs_fg() const { return gc_runs_fg_.value(); }
  uint64_t write_stalls() const { return write_stalls_.value(); }
  uint64_t redirected_writes() const { return core_.counters().redirected_writes.value(); }
  uint64_t unmapped_reads() const { return unmapped_reads_.value(); }
  double WriteAmplification() const;
  // victims x unit pages / (victims x unit pages - GC copies): the
  // steady-state write amplification the collected victims imply.
  double VictimWriteAmplification() const;

 private:
  enum class CmdKind : uint8_t {
    kHostRead = 1,
    kHostWrite,
    kGcRead,
    kGcProgram,
    kGcErase,
    kMapRead,         // a host op's mapping-cache miss: reads its translation page
    kMapUpdateRead,   // reads a translation page before writing its new version
    kMapProgram,      // programs a translation page
  };
  // Command tags: the kind in bits 56-63; GC commands carry their group in
  // bits 24-55 and slot in bits 0-23 (Validate bounds the slots per group);
  // host commands carry their 32-bit slot in bits 0-31.
  static uint64_t Tag(CmdKind k, uint32_t group, uint32_t index) {
    DCHECK_LT(index, 1u << 24);
    return (static_cast<uint64_t>(k) << 56) | (static_cast<uint64_t>(group) << 24) | index;
  }
  static uint64_t HostTag(CmdKind k, uint32_t index) { return (static_cast<uint64_t>(k) << 56) | index; }

  struct HostSlot {
    flash::FlashCommand cmd;
    FtlOp* op = nullptr;     // null for translation-page updates
    uint64_t tpage = 0;      // kMapUpdateRead/kMapProgram: the translation page
  };
  struct GcSlot {
    flash::FlashCommand cmd;
    Lpn lpn;
    flash::Ppn src;
  };
  struct GroupState {
    bool active = false;
    UnitId victim = kNoUnit;
    uint32_t scan = 0;        // next page of the victim to examine
    uint32_t in_flight = 0;   // busy GC slots
    uint32_t erases_pending = 0;
    uint32_t copied = 0;      // copies placed in this run
    uint32_t fruitless = 0;   // consecutive foreground runs that freed nothing
    // A background run freed nothing (every candidate fully valid): no more
    // background runs until a host write lands in the group.
    bool bg_blocked = false;
    bool wear_leveling = false;  // this run moves a unit for static wear leveling
    bool counted = false;        // a background run counted against gc_max_per_die
    bool background = false;     // the run started with no write waiting
    bool preempted = false;      // with gc_preemptible: yielded to a host read on preempt_die
    uint32_t preempt_die = 0;
    std::vector<uint32_t> held;  // with gc_preemptible: copies read, their program held back
    std::vector<GcSlot> slots;
    std::vector<uint32_t> free_slots;
    std::vector<flash::FlashCommand> erase_cmds;
    FtlOp* wait_head = nullptr;  // host writes waiting for a free unit
    FtlOp* wait_tail = nullptr;
  };

  void SubmitRead(FtlOp* op);
  void SubmitWrite(FtlOp* op);
  // After the mapping entry is known (hit, or the translation read done).
  void ReadMapped(FtlOp* op);
  void WriteMapped(FtlOp* op);
  // With a mapping cache: looks up op's entry; true if the op waits for a
  // translation read (its miss's, or one in flight for the same translation
  // page); it resumes from OnMapDone in submission order.
  bool NeedsMapRead(FtlOp* op, bool write);
  void OnMapDone(CmdKind kind, uint32_t index);
  // Starts the queued translation-page updates (FtlCore::NextMapUpdate);
  // those with no group to take them wait in map_blocked_.
  void PumpMapUpdates();
  void PlaceMapWrite(uint64_t tpage);
  uint32_t AcquireSlot(FtlOp* op, flash::FlashOpKind kind, flash::Ppn p, CmdKind tag_kind);
  // `group` can issue a host write of s now: no writes wait there and it
  // can allocate without GC.
  bool Ready(uint32_t group, Stream s) const;
  // Appends op to the group's waiting writes and starts GC there if needed.
  void Enqueue(FtlOp* op, uint32_t group);
  void IssueWrite(FtlOp* op, uint32_t group, Stream s);
  uint32_t AcquireHostSlot(FtlOp* op);
  void OnHostDone(CmdKind kind, uint32_t index);
  void OnUnmappedDue();

  void MaybeStartGc(uint32_t group);
  // With gc_max_per_die: whether a background run may start in `group`
  // (counting it if so); always true otherwise.
  bool TakeDieGcSlot(uint32_t group);
  bool DieGcSlotFree(uint32_t group) const {
    return die_bg_gc_.empty() || die_bg_gc_[group / core_.geometry().planes_per_die] < core_.config().gc_max_per_die;
  }
  void ReleaseDieGcSlot(uint32_t group);
  void Pump(uint32_t group);
  // With gc_preemptible: the run in `group` may yield to host reads now
  // (background, no write waiting, free units above the GC reserve).
  bool MayYield(uint32_t group) const {
    const GroupState& gs = groups_[group];
    return !die_host_reads_.empty() && gs.background && gs.wait_head == nullptr &&
           core_.blocks().free_units(group) > core_.fg_reserve_units();
  }
  // With gc_preemptible, at a preemption point of the run in `group` whose
  // next command goes to `die`: true (and the run is marked preempted on
  // `die`, counted once per yield) if it must wait for the die's host reads.
  bool Yields(uint32_t group, uint32_t die);
  // The last host read on `die` completed: preempted runs there resume.
  void ResumePreempted(uint32_t die);
  // Ends a preemption of the run in `group`: programs the held copies and
  // pumps. The run may yield again at once (another die of a spanning group).
  void Resume(uint32_t group);
  void IssueErase(uint32_t group);
  void OnGcReadDone(uint32_t group, uint32_t slot);
  // Places the copy read into `slot` and submits its program (or frees the
  // slot if the page went stale).
  void ProgramCopy(uint32_t group, uint32_t slot);
  void OnGcProgramDone(uint32_t group, uint32_t slot);
  void OnEraseDone(uint32_t group);
  void DrainWaiting(uint32_t group);
  void UpdateFreeGauge();
  void RegisterStats(const sim::StatGroup& stats);

  FtlCore core_;
  flash::FlashArray* array_;
  sim::EventQueue* queue_;

  std::deque<HostSlot> host_slots_;
  std::vector<uint32_t> free_host_slots_;
  std::vector<GroupState> groups_;
  uint64_t host_in_flight_ = 0;
  uint64_t waiting_writes_ = 0;
  // Per translation page: host ops waiting for its load (a kMapRead).
  struct MapWait {
    FtlOp* head = nullptr;
    FtlOp* tail = nullptr;
  };
  std::vector<MapWait> map_wait_;
  std::deque<uint64_t> map_blocked_;  // translation pages read and waiting for a group with room
  std::vector<uint32_t> die_bg_gc_;  // per die, with gc_max_per_die: active background runs
  sim::Counter gc_deferred_;         // background runs held back by gc_max_per_die
  std::vector<uint32_t> die_host_reads_;  // per die, with gc_preemptible: host reads outstanding
  sim::Counter gc_preemptions_;           // with gc_preemptible: yields of GC runs to host reads

  // Reads of unmapped pages, completing in submission order.
  FtlOp* unmapped_head_ = nullptr;
  FtlOp* unmapped_tail_ = nullptr;
  sim::MemberEvent<PageFtl, &PageFtl::OnUnmappedDue> unmapped_event_{this, sim::Priority::kCompletion};

  sim::Counter host_reads_, unmapped_reads_, gc_reads_, gc_stale_copies_, gc_runs_bg_, gc_runs_fg_;
  sim::Counter trim_commands_, write_stalls_;
  sim::Histogram write_stall_time_;
  sim::Gauge free_blocks_;
  sim::Gauge pre_host_writes_, pre_gc_copies_, pre_wa_;
};

}  // namespace ftl
