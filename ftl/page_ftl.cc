#include "ftl/page_ftl.h"

#include <limits>

#include <algorithm>

#include "ftl/ftl_factory.h"
#include "sim/registry.h"

namespace ftl {

PageFtl::PageFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                 const sim::StatGroup& stats)
    : core_(cfg, array->geometry(), array), array_(array), queue_(queue) {
  const BlockManager& blocks = core_.blocks();
  const uint32_t slots = cfg.gc_pages_in_flight * blocks.group_planes();
  groups_.resize(blocks.groups());
  for (uint32_t g = 0; g < blocks.groups(); ++g) {
    GroupState& gs = groups_[g];
    gs.slots.resize(slots);
    gs.free_slots.reserve(slots);
    for (uint32_t i = slots; i-- > 0;) {
      GcSlot& s = gs.slots[i];
      s.cmd.source = flash::CmdSource::kGc;
      s.cmd.client = this;
      gs.free_slots.push_back(i);
    }
    gs.erase_cmds.resize(blocks.group_planes());
    for (uint32_t j = 0; j < blocks.group_planes(); ++j) {
      flash::FlashCommand& c = gs.erase_cmds[j];
      c.kind = flash::FlashOpKind::kErase;
      c.source = flash::CmdSource::kGc;
      c.client = this;
      c.tag = Tag(CmdKind::kGcErase, g, j);
    }
  }
  map_wait_.resize(core_.translation_pages());
  if (cfg.gc_max_per_die != 0) die_bg_gc_.assign(array->geometry().dies(), 0);
  if (cfg.gc_preemptible) die_host_reads_.assign(array->geometry().dies(), 0);
  UpdateFreeGauge();
  RegisterStats(stats);
}

PageFtl::~PageFtl() {
  if (unmapped_event_.scheduled()) queue_->Deschedule(&unmapped_event_);
}

void PageFtl::RegisterStats(const sim::StatGroup& st) {
  const FtlCounters& c = core_.counters();
  st.Add(&host_reads_, "host_reads", "pages", "Host page reads served");
  st.Add(&c.host_writes, "host_writes", "pages", "Host pages written (programs)");
  st.Add(&unmapped_reads_, "unmapped_reads", "pages", "Host reads of unmapped pages (no flash access)");
  st.Add(&gc_reads_, "gc_reads", "pages", "Valid pages read by GC");
  st.Add(&c.gc_copies, "gc_copies", "pages", "Valid pages programmed by GC (relocations)");
  st.Add(&gc_stale_copies_, "gc_stale_copies", "pages",
         "GC reads whose page was overwritten or trimmed before its copy was placed (copy skipped)");
  st.Add(&gc_runs_bg_, "gc_runs_bg", "victims", "GC victims collected in the background");
  st.Add(&gc_runs_fg_, "gc_runs_fg", "victims", "GC victims collected while host writes waited (foreground)");
  st.Add(&c.block_erases, "erases", "blocks", "Flash blocks erased");
  st.Add(&c.trimmed_pages, "trims", "pages", "Mapped pages unmapped by trim");
  st.Add(&trim_commands_, "trim_commands", "commands", "Trim calls");
  st.Add(&write_stalls_, "write_stalls", "pages", "Host writes that waited for foreground GC");
  st.Add(&write_stall_time_, "write_stall_time", "ns", "Time host writes waited for foreground GC");
  st.Add(&free_blocks_, "free_blocks", "blocks", "Erased blocks in the free pools");
  st.AddFormula([this] { return WriteAmplification(); }, "write_amplification", "ratio",
                "(host + GC page programs) / host page programs");
  st.AddFormula([this] { return VictimWriteAmplification(); }, "victim_write_amplification", "ratio",
                "Write amplification the GC victims imply: victims x unit pages / the pages they freed (unit pages "
                "- valid pages copied); the steady-state figure for the device's state, free of the whole-victim "
                "steps that make a short run's write_amplification jump (0: no victim)");
  st.AddFormula([this] { return static_cast<double>(core_.blocks().unit_pages()) * core_.blocks().groups(); },
                "gc_cycle_pages", "pages",
                "Pages that fill one erase unit in every plane group: a run writing fewer host pages measures "
                "write_amplification in whole GC victims (see victim_write_amplification)");
  st.AddFormula([this] { return core_.EraseCounts().min; }, "erase_count_min", "erases", "Fewest erases of a block");
  st.AddFormula([this] { return core_.EraseCounts().max; }, "erase_count_max", "erases", "Most erases of a block");
  st.AddFormula([this] { return core_.EraseCounts().mean; }, "erase_count_mean", "erases", "Mean erases per block");
  st.AddFormula([this] { return core_.EraseCounts().stddev; }, "erase_count_stddev", "erases",
                "Standard deviation of erases per block");
  st.AddFormula([this] { return static_cast<double>(core_.logical_pages()); }, "logical_pages", "pages",
                "Exported logical pages");
  st.AddSeries([this] { return free_blocks_.value(); }, sim::StatGroup::SeriesKind::kValue, "free_blocks", "blocks",
               "Erased blocks in the free pools");
  st.AddSeries([this] { return static_cast<double>(core_.counters().gc_copies.value()); },
               sim::StatGroup::SeriesKind::kRate, "gc_copy_rate", "pages/s", "GC page relocations per second");
  // Per interval: the write amplification of the interval's programs, GC
  // copies and erases (columns that sum to the run's counters).
  st.AddIntervalRatio(
      [this] {
        const FtlCounters& k = core_.counters();
        return static_cast<double>(k.host_writes.value() + k.gc_copies.value() +
                                   (core_.map_cached() ? k.map_writes.value() : 0));
      },
      [this] { return static_cast<double>(core_.counters().host_writes.value()); }, "write_amplification", "ratio",
      "write amplification of the interval: its page programs / its host page programs");
  st.AddSeries([this] { return static_cast<double>(core_.counters().gc_copies.value()); },
               sim::StatGroup::SeriesKind::kDelta, "gc_copies", "pages", "GC page relocations in the interval");
  st.AddSeries([this] { return static_cast<double>(core_.counters().block_erases.value()); },
               sim::StatGroup::SeriesKind::kDelta, "erases", "blocks", "Flash blocks erased in the interval");
  if (core_.map_cached()) {
    const sim::StatGroup m = st.Group("map_cache");
    m.Add(&c.map_hits, "hits", "lookups", "Host mapping lookups served from the DRAM mapping cache");
    m.Add(&c.map_misses, "misses", "lookups", "Host mapping lookups that missed the DRAM mapping cache");
    m.AddFormula(
        [this] {
          const double h = static_cast<double>(core_.counters().map_hits.value());
          const double n = h + static_cast<double>(core_.counters().map_misses.value());
          return n > 0 ? h / n : 0.0;
        },
        "hit_ratio", "ratio", "hits / (hits + misses)");
    m.Add(&c.map_reads, "translation_reads", "pages",
          "Translation pages read from flash (misses, and reads before write-backs)");
    m.Add(&c.map_writes, "translation_writes", "pages",
          "Translation pages programmed (write-backs of dirty entries and GC/trim updates)");
    m.Add(&c.map_gc_copies, "translation_gc_copies", "pages", "Translation pages relocated by GC (in gc_copies)");
    m.AddFormula([this] { return static_cast<double>(core_.translation_pages()); }, "translation_pages", "pages",
                 "Translation pages of the whole mapping table");
  }
  if (core_.config().gc_max_per_die != 0) {
    st.Add(&gc_deferred_, "gc_deferred", "runs",
           "Background GC starts held back because gc_max_per_die runs were active on the die");
  }
  if (core_.config().gc_preemptible) {
    st.Add(&gc_preemptions_, "gc_preemptions", "yields",
           "Times a background GC run held back its next page read, program or erase because a host read was outstanding on its die");
  }
  if (core_.config().wear_leveling.enabled()) {
    const sim::StatGroup w = st.Group("wear_leveling");
    w.Add(&c.wl_runs, "runs", "units", "Units whose data static wear leveling moved (erase count lagging)");
    w.Add(&c.wl_copies, "copies", "pages", "Pages moved by static wear leveling (in gc_copies)");
    w.AddFormula(
        [this] {
          const EraseCountSummary e = core_.EraseCounts();
          return static_cast<double>(e.max - e.min);
        },
        "erase_count_spread", "erases", "Most minus fewest erases of a unit");
  }
  const sim::StatGroup pre = st.Group("precondition");
  pre.Add(&pre_host_writes_, "host_writes", "pages", "Host pages written functionally by Precondition");
  pre.Add(&pre_gc_copies_, "gc_copies", "pages", "GC copies made functionally by Precondition");
  pre.Add(&pre_wa_, "write_amplification", "ratio", "Write amplification of the preconditioning writes");
}

double PageFtl::WriteAmplification() const {
  const double host = static_cast<double>(core_.counters().host_writes.value());
  if (host == 0) return 0;
  const double gc = static_cast<double>(core_.counters().gc_copies.value());
  if (!core_.map_cached()) return (host + gc) / host;
  return (host + gc + static_cast<double>(core_.counters().map_writes.value())) / host;
}

double PageFtl::VictimWriteAmplification() const {
  const double victims = static_cast<double>(gc_runs_bg_.value() + gc_runs_fg_.value());
  if (victims == 0) return 0;
  const FtlCounters& c = core_.counters();
  const double copied = static_cast<double>(c.gc_copies.value() - c.wl_copies.value());
  const double pages = victims * core_.blocks().unit_pages();
  return pages > copied ? pages / (pages - copied) : std::numeric_limits<double>::infinity();
}

void PageFtl::UpdateFreeGauge() {
  free_blocks_.Set(static_cast<double>(core_.blocks().total_free_units() * core_.blocks().group_planes()));
}

bool PageFtl::Idle() const {
  if (host_in_flight_ != 0 || unmapped_head_ != nullptr || waiting_writes_ != 0) return false;
  if (!map_blocked_.empty() || core_.HasMapUpdates()) return false;
  for (const MapWait& w : map_wait_) {
    if (w.head != nullptr) return false;
  }
  for (const GroupState& gs : groups_) {
    if (gs.active) return false;
  }
  return true;
}

// ---------------------------------------------------------------- host ops

void PageFtl::Submit(FtlOp* op) {
  CHECK(op->lpn.valid() && op->lpn.v < core_.logical_pages()) << "lpn " << op->lpn.v << " out of range";
  op->submit_time = queue_->now();
  op->next = nullptr;
  if (op->kind == FtlOp::Kind::kRead) {
    SubmitRead(op);
  } else {
    SubmitWrite(op);
  }
}

uint32_t PageFtl::AcquireHostSlot(FtlOp* op) {
  uint32_t i;
  if (free_host_slots_.empty()) {
    CHECK_LT(host_slots_.size(), size_t{UINT32_MAX}) << "host pages in flight exceed 32-bit slot numbers";
    i = static_cast<uint32_t>(host_slots_.size());
    host_slots_.emplace_back();
    host_slots_.back().cmd.client = this;
    host_slots_.back().cmd.source = flash::CmdSource::kHost;
  } else {
    i = free_host_slots_.back();
    free_host_slots_.pop_back();
  }
  host_slots_[i].op = op;
  ++host_in_flight_;
  return i;
}

uint32_t PageFtl::AcquireSlot(FtlOp* op, flash::FlashOpKind kind, flash::Ppn p, CmdKind tag_kind) {
  const uint32_t i = AcquireHostSlot(op);
  flash::FlashCommand& c = host_slots_[i].cmd;
  c.kind = kind;
  c.ppn = p;
  c.source = flash::CmdSource::kMeta;
  c.tag = HostTag(tag_kind, i);
  return i;
}

bool PageFtl::NeedsMapRead(FtlOp* op, bool write) {
  const MapAccess a = core_.AccessMapping(op->lpn, write);
  PumpMapUpdates();  // a dirty eviction's write-back
  const uint64_t t = core_.map_cache()->PageOf(op->lpn);
  MapWait& w = map_wait_[t];
  const bool loading = w.head != nullptr;
  if (!loading && (a.hit || !a.read.valid())) return false;
  // Every op of a page being loaded waits behind the load, so ops of one
  // Lpn keep their submission order.
  op->next = nullptr;
  (loading ? w.tail->next : w.head) = op;
  w.tail = op;
  if (loading) return true;
  core_.CountMapRead();
  const uint32_t i = AcquireSlot(nullptr, flash::FlashOpKind::kRead, a.read, CmdKind::kMapRead);
  host_slots_[i].tpage = t;
  array_->Submit(&host_slots_[i].cmd);
  return true;
}

void PageFtl::OnMapDone(CmdKind kind, uint32_t index) {
  HostSlot& slot = host_slots_[index];
  FtlOp* op = slot.op;
  const uint64_t tpage = slot.tpage;
  const flash::Ppn ppn = slot.cmd.ppn;
  slot.op = nullptr;
  slot.cmd.source = flash::CmdSource::kHost;
  free_host_slots_.push_back(index);
  --host_in_flight_;
  switch (kind) {
    case CmdKind::kMapRead: {
      MapWait& w = map_wait_[tpage];
      op = w.head;
      w.head = w.tail = nullptr;
      while (op != nullptr) {
        FtlOp* next = op->next;
        op->next = nullptr;
        if (op->kind == FtlOp::Kind::kRead) {
          ReadMapped(op);
        } else {
          WriteMapped(op);
        }
        op = next;
      }
      break;
    }
    case CmdKind::kMapUpdateRead:
      PlaceMapWrite(tpage);
      break;
    default: {
      core_.ProgramDone(ppn);
      MaybeStartGc(core_.blocks().GroupOf(core_.blocks().UnitOf(ppn)));
      break;
    }
  }
}

void PageFtl::PumpMapUpdates() {
  uint64_t t;
  while (core_.NextMapUpdate(&t)) {
    const flash::Ppn old = core_.ReadForMapUpdate(t);
    if (!old.valid()) {
      PlaceMapWrite(t);
      continue;
    }
    const uint32_t i = AcquireSlot(nullptr, flash::FlashOpKind::kRead, old, CmdKind::kMapUpdateRead);
    host_slots_[i].tpage = t;
    array_->Submit(&host_slots_[i].cmd);
  }
}

void PageFtl::PlaceMapWrite(uint64_t tpage) {
  const uint32_t g = core_.MapGroup(tpage);
  if (g == UINT32_MAX) {
    map_blocked_.push_back(tpage);  // retried when GC frees a unit
    return;
  }
  const flash::Ppn p = core_.PlaceMapPage(tpage, g);
  groups_[g].bg_blocked = false;
  const uint32_t i = AcquireSlot(nullptr, flash::FlashOpKind::kProgram, p, CmdKind::kMapProgram);
  host_slots_[i].tpage = tpage;
  UpdateFreeGauge();
  array_->Submit(&host_slots_[i].cmd);
  MaybeStartGc(g);
}

void PageFtl::SubmitRead(FtlOp* op) {
  if (core_.map_cached() && NeedsMapRead(op, /*write=*/false)) return;
  ReadMapped(op);
}

void PageFtl::ReadMapped(FtlOp* op) {
  const flash::Ppn p = core_.Lookup(op->lpn);
  if (!p.valid()) {
    unmapped_reads_.Inc();
    op->finish_time = queue_->now() + core_.config().unmapped_read_latency;
    if (unmapped_tail_ == nullptr) {
      unmapped_head_ = op;
    } else {
      unmapped_tail_->next = op;
    }
    unmapped_tail_ = op;
    if (!unmapped_event_.scheduled()) queue_->Schedule(&unmapped_event_, unmapped_head_->finish_time);
    return;
  }
  const uint32_t i = AcquireHostSlot(op);
  flash::FlashCommand& c = host_slots_[i].cmd;
  c.kind = flash::FlashOpKind::kRead;
  c.ppn = p;
  c.tag = HostTag(CmdKind::kHostRead, i);
  if (!die_host_reads_.empty()) ++die_host_reads_[core_.geometry().DieOfPpn(p)];
  array_->Submit(&c);
}

void PageFtl::OnUnmappedDue() {
  const sim::SimTime now = queue_->now();
  while (unmapped_head_ != nullptr && unmapped_head_->finish_time <= now) {
    FtlOp* op = unmapped_head_;
    unmapped_head_ = op->next;
    if (unmapped_head_ == nullptr) unmapped_tail_ = nullptr;
    op->next = nullptr;
    host_reads_.Inc();
    op->client->OnFtlDone(op);
  }
  if (unmapped_head_ != nullptr && !unmapped_event_.scheduled()) {
    queue_->Schedule(&unmapped_event_, unmapped_head_->finish_time);
  }
}

void PageFtl::SubmitWrite(FtlOp* op) {
  if (core_.map_cached() && NeedsMapRead(op, /*write=*/true)) return;
  WriteMapped(op);
}

void PageFtl::WriteMapped(FtlOp* op) {
  const Stream s = core_.HostStream(op->temperature);
  const uint32_t g = core_.HostGroup(op->lpn, s);
  if (!Ready(g, s)) {
    write_stalls_.Inc();
    Enqueue(op, g);
    return;
  }
  IssueWrite(op, g, s);
}

bool PageFtl::Ready(uint32_t group, Stream s) const {
  return groups_[group].wait_head == nullptr && core_.CanAllocateHost(group, s);
}

void PageFtl::Enqueue(FtlOp* op, uint32_t group) {
  GroupState& gs = groups_[group];
  op->next = nullptr;
  if (gs.wait_tail == nullptr) {
    gs.wait_head = op;
  } else {
    gs.wait_tail->next = op;
  }
  gs.wait_tail = op;
  ++waiting_writes_;
  MaybeStartGc(group);
}

void PageFtl::IssueWrite(FtlOp* op, uint32_t group, Stream s) {
  const flash::Ppn p = core_.PlaceHostPage(op->lpn, group, s);
  groups_[group].bg_blocked = false;
  const uint32_t i = AcquireHostSlot(op);
  flash::FlashCommand& c = host_slots_[i].cmd;
  c.kind = flash::FlashOpKind::kProgram;
  c.ppn = p;
  c.tag = HostTag(CmdKind::kHostWrite, i);
  UpdateFreeGauge();
  array_->Submit(&c);
  MaybeStartGc(group);
}

void PageFtl::OnHostDone(CmdKind kind, uint32_t index) {
  HostSlot& slot = host_slots_[index];
  FtlOp* op = slot.op;
  slot.op = nullptr;
  free_host_slots_.push_back(index);
  --host_in_flight_;
  if (kind == CmdKind::kHostWrite) {
    core_.ProgramDone(slot.cmd.ppn);
    // The program may have completed a unit, creating a GC candidate.
    MaybeStartGc(core_.blocks().GroupOf(core_.blocks().UnitOf(slot.cmd.ppn)));
  } else {
    host_reads_.Inc();
    if (!die_host_reads_.empty()) {
      const uint32_t die = core_.geometry().DieOfPpn(slot.cmd.ppn);
      if (--die_host_reads_[die] == 0) ResumePreempted(die);
    }
  }
  op->finish_time = queue_->now();
  op->client->OnFtlDone(op);
}

void PageFtl::Trim(Lpn first, uint64_t count) {
  trim_commands_.Inc();
  core_.Trim(first, count);
  if (core_.map_cached()) PumpMapUpdates();
}

void PageFtl::Precondition(const PreconditionSpec& spec) {
  CHECK(Idle()) << "Precondition requires an idle FTL";
  const FtlCounters& c = core_.counters();
  const uint64_t host0 = c.host_writes.value();
  const uint64_t gc0 = c.gc_copies.value();
  core_.Precondition(spec);
  pre_host_writes_.Add(static_cast<double>(c.host_writes.value() - host0));
  pre_gc_copies_.Add(static_cast<double>(c.gc_copies.value() - gc0));
  pre_wa_.Set(pre_host_writes_.value() > 0
                  ? (pre_host_writes_.value() + pre_gc_copies_.value()) / pre_host_writes_.value()
                  : 0);
  // Timed counters start from the preconditioned state; erase counts stay
  // in the per-unit table (wear is real).
  core_.ResetCounters();
  UpdateFreeGauge();
}

// ---------------------------------------------------------------------- GC

void PageFtl::MaybeStartGc(uint32_t group) {
  GroupState& gs = groups_[group];
  if (gs.active) {
    // A preempted run whose group now needs the space (writes wait, or the
    // free units reached the reserve) runs on regardless of host reads.
    if (gs.preempted && !MayYield(group)) Resume(group);
    return;
  }
  const bool fg = gs.wait_head != nullptr;
  if (!fg && core_.WearLevelingRoom(group) && DieGcSlotFree(group)) {
    // A static wear-leveling move, if one is due, goes before background GC.
    const UnitId u = core_.SelectWearLevelVictim(group);
    if (u != kNoUnit) {
      CHECK(TakeDieGcSlot(group));
      gs.active = true;
      gs.background = true;
      gs.wear_leveling = true;
      gs.victim = u;
      gs.scan = 0;
      gs.copied = 0;
      Pump(group);
      return;
    }
  }
  if (!fg && (gs.bg_blocked || !core_.BelowGcThreshold(group))) return;
  if (!fg && !TakeDieGcSlot(group)) return;
  const UnitId u = core_.SelectVictim(group);
  if (u == kNoUnit) {
    if (gs.counted) ReleaseDieGcSlot(group);
    return;  // retried when a unit fills
  }
  (fg ? gc_runs_fg_ : gc_runs_bg_).Inc();
  gs.active = true;
  gs.background = !fg;
  gs.victim = u;
  gs.scan = 0;
  gs.copied = 0;
  Pump(group);
}

bool PageFtl::TakeDieGcSlot(uint32_t group) {
  if (die_bg_gc_.empty()) return true;
  uint32_t& n = die_bg_gc_[group / core_.geometry().planes_per_die];
  if (n >= core_.config().gc_max_per_die) {
    gc_deferred_.Inc();
    return false;
  }
  ++n;
  groups_[group].counted = true;
  return true;
}

void PageFtl::ReleaseDieGcSlot(uint32_t group) {
  groups_[group].counted = false;
  --die_bg_gc_[group / core_.geometry().planes_per_die];
}

void PageFtl::Pump(uint32_t group) {
  GroupState& gs = groups_[group];
  const BlockManager& blocks = core_.blocks();
  const uint32_t pages = blocks.unit_pages();
  if (gs.preempted && !MayYield(group)) {
    Resume(group);  // the space is needed now: held copies go first
    return;
  }
  // Nothing left to copy once the victim holds no valid page and no copy is
  // in flight (in-flight sources still count as valid until placed).
  if (gs.in_flight == 0 && blocks.valid(gs.victim) == 0) gs.scan = pages;
  while (!gs.free_slots.empty() && gs.scan < pages) {
    gs.scan = core_.NextValidPage(gs.victim, gs.scan);
    if (gs.scan == pages) break;
    const flash::Ppn src = blocks.PpnOf(gs.victim, gs.scan);
    const Lpn l = core_.mapping().LpnAt(src);
    // PlaceGcCopy rewrites l's entry when the read completes: start
    // loading it now.
    core_.PrefetchEntry(l);
    // Preemption point: before a page copy.
    if (!die_host_reads_.empty() && Yields(group, core_.geometry().DieOfPpn(src))) break;
    ++gs.scan;
    const uint32_t i = gs.free_slots.back();
    gs.free_slots.pop_back();
    GcSlot& s = gs.slots[i];
    s.lpn = l;
    s.src = src;
    s.cmd.kind = flash::FlashOpKind::kRead;
    s.cmd.ppn = src;
    s.cmd.tag = Tag(CmdKind::kGcRead, group, i);
    ++gs.in_flight;
    gc_reads_.Inc();
    array_->Submit(&s.cmd);
  }
  if (gs.scan == pages && gs.in_flight == 0 && gs.erases_pending == 0) {
    // Preemption point: before the erase (tBERS holds the die longest).
    if (!die_host_reads_.empty()) {
      for (uint32_t j = 0; j < blocks.group_planes(); ++j) {
        const flash::Ppn first = core_.geometry().FirstPpnOfBlock(blocks.BlockIdOf(gs.victim, j));
        if (Yields(group, core_.geometry().DieOfPpn(first))) return;
      }
    }
    IssueErase(group);
  }
}

bool PageFtl::Yields(uint32_t group, uint32_t die) {
  GroupState& gs = groups_[group];
  if (die_host_reads_[die] == 0 || !MayYield(group)) return false;
  if (!gs.preempted) gc_preemptions_.Inc();
  gs.preempted = true;
  gs.preempt_die = die;
  return true;
}

void PageFtl::ResumePreempted(uint32_t die) {
  const BlockManager& blocks = core_.blocks();
  // Per-plane groups: the groups of the die's planes; groups spanning
  // planes: every group.
  const uint32_t ppd = core_.geometry().planes_per_die;
  const bool per_plane = blocks.group_planes() == 1;
  const uint32_t n = per_plane ? ppd : blocks.groups();
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t g = per_plane ? blocks.GroupOfPlane(die * ppd + i) : i;
    GroupState& gs = groups_[g];
    if (!gs.active || !gs.preempted || gs.preempt_die != die) continue;
    Resume(g);
  }
}

void PageFtl::Resume(uint32_t group) {
  GroupState& gs = groups_[group];
  gs.preempted = false;
  // Held copies first, in the order their reads completed; each may end
  // the run's copying (Pump from a stale copy), so take them one by one.
  while (!gs.held.empty() && !gs.preempted) {
    const uint32_t slot = gs.held.front();
    gs.held.erase(gs.held.begin());
    ProgramCopy(group, slot);
  }
  if (!gs.preempted) Pump(group);
}

void PageFtl::OnGcReadDone(uint32_t group, uint32_t slot) {
  GroupState& gs = groups_[group];
  // Preemption point: between a copy's read and its program (the page
  // waits in the controller; the copy is placed only when it goes on).
  if (!die_host_reads_.empty() && Yields(group, core_.geometry().DieOfPpn(gs.slots[slot].src))) {
    gs.held.push_back(slot);
    return;
  }
  ProgramCopy(group, slot);
}

void PageFtl::ProgramCopy(uint32_t group, uint32_t slot) {
  GroupState& gs = groups_[group];
  GcSlot& s = gs.slots[slot];
  const flash::Ppn dst = core_.PlaceGcCopy(s.lpn, s.src);
  if (!dst.valid()) {
    gc_stale_copies_.Inc();
    gs.free_slots.push_back(slot);
    --gs.in_flight;
    Pump(group);
    return;
  }
  ++gs.copied;
  if (gs.wear_leveling) core_.CountWearLevelCopy();
  UpdateFreeGauge();
  s.cmd.kind = flash::FlashOpKind::kProgram;
  s.cmd.ppn = dst;
  s.cmd.tag = Tag(CmdKind::kGcProgram, group, slot);
  array_->Submit(&s.cmd);
}

void PageFtl::OnGcProgramDone(uint32_t group, uint32_t slot) {
  GroupState& gs = groups_[group];
  core_.ProgramDone(gs.slots[slot].cmd.ppn);
  gs.free_slots.push_back(slot);
  --gs.in_flight;
  Pump(group);
}

void PageFtl::IssueErase(uint32_t group) {
  GroupState& gs = groups_[group];
  const BlockManager& blocks = core_.blocks();
  gs.erases_pending = blocks.group_planes();
  for (uint32_t j = 0; j < blocks.group_planes(); ++j) {
    flash::FlashCommand& c = gs.erase_cmds[j];
    c.ppn = core_.geometry().FirstPpnOfBlock(blocks.BlockIdOf(gs.victim, j));
    array_->Submit(&c);
  }
}

void PageFtl::OnEraseDone(uint32_t group) {
  GroupState& gs = groups_[group];
  if (--gs.erases_pending > 0) return;
  core_.EraseUnit(gs.victim);
  UpdateFreeGauge();
  if (gs.wear_leveling) {
    gs.wear_leveling = false;  // moving a full unit is the point: not a fruitless run
  } else if (gs.copied == core_.blocks().unit_pages()) {
    if (gs.wait_head != nullptr) {
      CHECK_LT(++gs.fruitless, 4 * core_.blocks().units_per_group())
          << "group " << group << " has no reclaimable space: every candidate is fully valid";
    } else {
      gs.bg_blocked = true;
    }
  } else {
    gs.fruitless = 0;
  }
  gs.active = false;
  gs.victim = kNoUnit;
  const bool released = gs.counted;
  if (released) ReleaseDieGcSlot(group);
  DrainWaiting(group);
  if (core_.map_cached()) {
    // Translation pages that waited for room, then this run's updates.
    for (size_t n = map_blocked_.size(); n > 0; --n) {
      const uint64_t t = map_blocked_.front();
      map_blocked_.pop_front();
      PlaceMapWrite(t);
    }
    PumpMapUpdates();
  }
  if (released) {
    // The die's budget has room again: its other planes go first (in turn
    // after this one), so one plane cannot keep the budget to itself.
    const uint32_t ppd = core_.geometry().planes_per_die;
    const uint32_t first = group / ppd * ppd;
    for (uint32_t i = 1; i < ppd; ++i) MaybeStartGc(first + (group - first + i) % ppd);
  }
  MaybeStartGc(group);
}

void PageFtl::DrainWaiting(uint32_t group) {
  GroupState& gs = groups_[group];
  while (gs.wait_head != nullptr) {
    FtlOp* op = gs.wait_head;
    const Stream s = core_.HostStream(op->temperature);
    // The writes issued ahead of this one may have filled the group to its
    // data cap; then the write moves on to another group.
    const bool moves = !core_.TakesHostPage(group, op->lpn);
    if (!moves && !core_.CanAllocateHost(group, s)) break;
    gs.wait_head = op->next;
    if (gs.wait_head == nullptr) gs.wait_tail = nullptr;
    op->next = nullptr;
    --waiting_writes_;
    uint32_t target = group;
    if (moves) {
      target = core_.OtherGroup(group, op->lpn, s);
      if (!Ready(target, s)) {
        Enqueue(op, target);  // keeps waiting, now there (one stall, timed to the final issue)
        continue;
      }
    }
    write_stall_time_.Record((queue_->now() - op->submit_time).ns());
    IssueWrite(op, target, s);
  }
}

void PageFtl::OnFlashComplete(flash::FlashCommand* cmd) {
  const auto kind = static_cast<CmdKind>(cmd->tag >> 56);
  const auto group = static_cast<uint32_t>((cmd->tag >> 24) & 0xFFFFFFFFu);
  const auto index = static_cast<uint32_t>(cmd->tag & 0xFFFFFFu);
  switch (kind) {
    case CmdKind::kHostRead:
    case CmdKind::kHostWrite:
      OnHostDone(kind, static_cast<uint32_t>(cmd->tag));
      break;
    case CmdKind::kGcRead:
      OnGcReadDone(group, index);
      break;
    case CmdKind::kGcProgram:
      OnGcProgramDone(group, index);
      break;
    case CmdKind::kGcErase:
      OnEraseDone(group);
      break;
    case CmdKind::kMapRead:
    case CmdKind::kMapUpdateRead:
    case CmdKind::kMapProgram:
      OnMapDone(kind, static_cast<uint32_t>(cmd->tag));
      break;
    default:
      LOG(FATAL) << "completion of a command this FTL did not submit (tag " << cmd->tag << ")";
  }
}

// ------------------------------------------------------------------ registration

namespace {
std::unique_ptr<Ftl> MakePageFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                                 const sim::StatGroup& stats) {
  return std::make_unique<PageFtl>(cfg, array, queue, stats);
}
sim::Status ValidatePageFtl(const FtlConfig& cfg, const flash::Geometry& g) { return cfg.ValidatePageMapped(g); }
uint64_t PageFtlLogicalPages(const FtlConfig& cfg, const flash::Geometry& g) { return cfg.LogicalPagesByOp(g); }
// The mapping tables exactly (with page mapping, their valid bits too), and
// per block the block manager's state
// (valid, erase and pending counts, close sequence, state, stream, free
// ring and candidate-set position: 34 bytes), rounded up to 48 bytes.
// With a mapping cache, its model: 4 bytes per logical page, 32 per cached
// entry, 5 per translation page (MapCache and the update queue).
uint64_t PageFtlMemory(const FtlConfig& cfg, const flash::Geometry& g) {
  const MapUnit unit = ParseMapUnit(cfg.mapping).value();
  const uint64_t logical = cfg.LogicalPagesByOp(g);
  const uint64_t tpages = cfg.TranslationPages(g);
  const uint64_t cache = cfg.map_cache.enabled()
                             ? 4 * logical + 32 * std::min(cfg.map_cache.Capacity(), logical) + 5 * tpages
                             : 0;
  return Mapping::TableBytes(logical + tpages, g, unit) + g.blocks() * uint64_t{48} + cache;
}
}  // namespace

const sim::Registrar<FtlKindInfo> kRegistered{{"page",
                                               "page-mapped FTL with GC (victim policies, allocation schemes)",
                                               &ValidatePageFtl, &PageFtlLogicalPages, &MakePageFtl, {},
                                               &PageFtlMemory}};

}  // namespace ftl
