#include "ftl/static_block_ftl.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <glog/logging.h>

#include "ftl/allocator.h"
#include "ftl/ftl_factory.h"
#include "sim/registry.h"

namespace ftl {

namespace {
constexpr const char* kKind = "static_block";
}  // namespace

void StaticBlockConfig::Describe(sim::Schema<StaticBlockConfig>& s) {
  // 2 %: NAND datasheets guarantee at least ~98 % good blocks per die (e.g.
  // Micron MLC parts: at least 4016 of 4096 blocks valid per LUN), so
  // controllers reserve about that share for bad and worn blocks.
  s.Param("spare", &StaticBlockConfig::spare, "2%",
          "Fraction of each plane's blocks kept as erased spares that replace retired blocks (rounded up); not "
          "exported")
      .Range(0, 0.5);
  // 3000: the rated program/erase endurance commonly given for 25 nm MLC
  // NAND, the cell of the ParaFS device (configs/devices/parafs.yaml).
  s.Param("erase_limit", &StaticBlockConfig::erase_limit, "3000",
          "Erases after which a block is retired and replaced by a spare of its plane (the flash model has no "
          "endurance of its own); 0 = never retire");
}

// ------------------------------------------------------------------ config

uint32_t StaticBlockFtl::SparesPerPlane(const FtlConfig& cfg, const flash::Geometry& g) {
  const double spare = cfg.kinds.Get<StaticBlockConfig>(kKind).spare.value;
  return static_cast<uint32_t>(std::ceil(spare * static_cast<double>(g.blocks_per_plane) - 1e-9));
}

uint64_t StaticBlockFtl::LogicalPages(const FtlConfig& cfg, const flash::Geometry& g) {
  return static_cast<uint64_t>(g.planes()) * (g.blocks_per_plane - SparesPerPlane(cfg, g)) * g.pages_per_block;
}

// Per logical block its state (BlockState, 32 bytes), per physical block its
// erase count and past-limit flag (5 bytes), per logical page one trim bit,
// and the spare lists (4 bytes per spare).
uint64_t StaticBlockFtl::MemoryBytes(const FtlConfig& cfg, const flash::Geometry& g) {
  const uint64_t logical_pages = LogicalPages(cfg, g);
  const uint64_t logical_blocks = logical_pages / g.pages_per_block;
  return logical_blocks * sizeof(BlockState) + g.blocks() * 5 + (logical_pages + 63) / 64 * 8 +
         uint64_t{g.planes()} * SparesPerPlane(cfg, g) * 4;
}

sim::Status StaticBlockFtl::Validate(const FtlConfig& cfg, const flash::Geometry& g) {
  auto seq = StripeSequence(g, cfg.stripe_order);
  if (!seq.ok()) return sim::Status::InvalidInput("ftl.stripe_order: " + seq.status().message());
  const uint32_t spares = SparesPerPlane(cfg, g);
  if (spares >= g.blocks_per_plane) {
    return sim::Status::InvalidInput(fmt::format(
        "ftl.static_block.spare: {} spare blocks per plane leave none of the {} blocks of a plane for data",
        spares, g.blocks_per_plane));
  }
  // Block slots and pages are numbered in 32 bits.
  if (g.pages_per_block >= UINT32_MAX) {
    return sim::Status::InvalidInput("device.geometry.pages_per_block: too large for ftl.kind static_block");
  }
  // Keys of the page-mapped FTL that mean nothing here: placement is fixed,
  // there is no FTL GC and the capacity is set by the spares. A value other
  // than the default is a configuration mistake, not something to ignore.
  const FtlConfig d;
  const std::string why = "it has no FTL garbage collection";
  auto unused = [&](const char* key, const std::string& what) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.{}: not used by ftl.kind static_block ({}); remove the key", key, what));
  };
  if (cfg.allocation != d.allocation) return unused("allocation", "its placement is the fixed block mapping");
  if (cfg.victim != d.victim) return unused("victim", "it has no FTL garbage collection");
  if (cfg.mapping != d.mapping) return unused("mapping", "it maps whole blocks");
  if (cfg.hot_cold) {
    return unused("hot_cold", "a fixed mapping cannot separate hot and cold writes; the file system groups them");
  }
  if (cfg.op != d.op) return unused("op", "its capacity is every block but the spares; set ftl.static_block.spare");
  if (cfg.gc_threshold != d.gc_threshold) return unused("gc_threshold", why);
  if (cfg.gc_threshold_units != d.gc_threshold_units) return unused("gc_threshold_units", why);
  if (cfg.gc_fg_threshold != d.gc_fg_threshold) return unused("gc_fg_threshold", why);
  if (cfg.gc_pages_in_flight != d.gc_pages_in_flight) return unused("gc_pages_in_flight", why);
  if (cfg.precondition.enabled && cfg.precondition.random_overwrites > 0) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.precondition.random_overwrites: {} given, but ftl.kind static_block can only be "
                    "preconditioned by a sequential fill (pages are written in order, never overwritten); set 0",
                    cfg.precondition.random_overwrites));
  }
  return sim::Status::Ok();
}

// ------------------------------------------------------------------ setup

StaticBlockFtl::StaticBlockFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                               const sim::StatGroup& stats)
    : cfg_(cfg),
      g_(array->geometry()),
      array_(array),
      queue_(queue),
      ppb_(g_.pages_per_block),
      planes_(g_.planes()),
      spares_(SparesPerPlane(cfg, g_)),
      erase_limit_(cfg.kinds.Get<StaticBlockConfig>(kKind).erase_limit) {
  const sim::Status st = Validate(cfg, g_);
  CHECK(st.ok()) << st.message();
  plane_seq_ = StripeSequence(g_, cfg.stripe_order).value();
  const uint32_t data_per_plane = g_.blocks_per_plane - spares_;
  logical_blocks_ = static_cast<uint64_t>(planes_) * data_per_plane;
  blocks_.resize(logical_blocks_);
  for (uint64_t b = 0; b < logical_blocks_; ++b) blocks_[b].slot_block = static_cast<uint32_t>(b / planes_);
  trimmed_.assign((logical_pages() + 63) / 64, 0);
  erase_count_.assign(g_.blocks(), 0);
  past_limit_.assign(g_.blocks(), 0);
  free_spares_.resize(planes_);
  for (uint32_t p = 0; p < planes_; ++p) {
    // Used from the back: the lowest-numbered spare first.
    for (uint32_t s = g_.blocks_per_plane; s-- > data_per_plane;) free_spares_[p].push_back(s);
  }
  free_blocks_count_ = logical_blocks_;
  spares_free_count_ = uint64_t{planes_} * spares_;
  UpdateGauges();
  RegisterStats(stats);
}

StaticBlockFtl::~StaticBlockFtl() {
  if (noflash_event_.scheduled()) queue_->Deschedule(&noflash_event_);
}

void StaticBlockFtl::RegisterStats(const sim::StatGroup& st) {
  st.Add(&host_reads_, "host_reads", "pages", "Host page reads served");
  st.Add(&host_writes_, "host_writes", "pages", "Host pages written (programs)");
  st.Add(&unmapped_reads_, "unmapped_reads", "pages", "Host reads of unmapped pages (no flash access)");
  st.Add(&gc_reads_, "gc_reads", "pages", "Valid pages read by FTL GC (static_block: none, it has no GC)");
  st.Add(&gc_copies_, "gc_copies", "pages", "Valid pages programmed by FTL GC (static_block: none, it has no GC)");
  st.Add(&gc_runs_bg_, "gc_runs_bg", "victims", "FTL GC victims collected in the background (static_block: none)");
  st.Add(&gc_runs_fg_, "gc_runs_fg", "victims", "FTL GC victims collected in the foreground (static_block: none)");
  st.Add(&erases_, "erases", "blocks", "Flash blocks erased");
  st.Add(&trims_, "trims", "pages", "Mapped pages unmapped by trim");
  st.Add(&trim_commands_, "trim_commands", "commands", "Trim calls");
  st.Add(&write_stalls_, "write_stalls", "pages", "Host writes that waited for their block's erase");
  st.Add(&write_stall_time_, "write_stall_time", "ns", "Time host writes waited for their block's erase");
  st.Add(&free_blocks_, "free_blocks", "blocks", "Erased blocks ready to be written from page 0 (spares included)");
  st.Add(&trim_erases_, "trim_erases", "blocks", "Whole-block trims that erased their block");
  st.Add(&dropped_by_trim_, "writes_dropped_by_trim", "pages",
         "Accepted writes still waiting for an erase when a whole-block trim discarded them (not programmed)");
  const sim::StatGroup err = st.Group("write_errors");
  err.Add(&errors_out_of_order_, "out_of_order", "pages", "Writes refused: not the next page of their block");
  err.Add(&errors_overwrite_, "overwrite", "pages", "Writes refused: page already written since the last erase");
  st.Add(&retired_, "retired_blocks", "blocks", "Blocks retired at the erase limit and replaced by a spare");
  st.Add(&spare_blocks_free_, "spare_blocks_free", "blocks", "Spare blocks not yet used to replace a retired one");
  st.Add(&past_limit_count_, "blocks_past_limit", "blocks",
         "Blocks that reached the erase limit with no spare left in their plane (kept in service)");
  st.AddFormula(
      [this] {
        const double host = static_cast<double>(host_writes_.value());
        return host > 0 ? (host + static_cast<double>(gc_copies_.value())) / host : 0.0;
      },
      "write_amplification", "ratio", "(host + GC page programs) / host page programs");
  // Erase counts of the blocks in service (retired blocks and unused spares
  // excluded), computed at dump time.
  auto summary = [this](int which) {
    double sum = 0, sq = 0, lo = 0, hi = 0;
    for (uint64_t b = 0; b < logical_blocks_; ++b) {
      const double e = erase_count_[PhysicalBlockOf(b)];
      sum += e;
      sq += e * e;
      lo = b == 0 ? e : std::min(lo, e);
      hi = std::max(hi, e);
    }
    const double n = static_cast<double>(logical_blocks_);
    const double mean = sum / n;
    switch (which) {
      case 0: return lo;
      case 1: return hi;
      case 2: return mean;
      default: return std::sqrt(std::max(0.0, sq / n - mean * mean));
    }
  };
  st.AddFormula([summary] { return summary(0); }, "erase_count_min", "erases", "Fewest erases of a block in service");
  st.AddFormula([summary] { return summary(1); }, "erase_count_max", "erases", "Most erases of a block in service");
  st.AddFormula([summary] { return summary(2); }, "erase_count_mean", "erases", "Mean erases per block in service");
  st.AddFormula([summary] { return summary(3); }, "erase_count_stddev", "erases",
                "Standard deviation of erases per block in service");
  st.AddFormula([this] { return static_cast<double>(logical_pages()); }, "logical_pages", "pages",
                "Exported logical pages");
  st.AddSeries([this] { return free_blocks_.value(); }, sim::StatGroup::SeriesKind::kValue, "free_blocks", "blocks",
               "Erased blocks ready to be written from page 0");
  st.AddSeries([this] { return static_cast<double>(gc_copies_.value()); }, sim::StatGroup::SeriesKind::kRate,
               "gc_copy_rate", "pages/s", "FTL GC page relocations per second (static_block: none)");
  const sim::StatGroup pre = st.Group("precondition");
  pre.Add(&pre_host_writes_, "host_writes", "pages", "Host pages written functionally by Precondition");
  pre.Add(&pre_gc_copies_, "gc_copies", "pages", "GC copies made functionally by Precondition (none)");
  pre.Add(&pre_wa_, "write_amplification", "ratio", "Write amplification of the preconditioning writes");
}

void StaticBlockFtl::Account(const BlockState& bs, bool was_free) {
  const bool now_free = IsFree(bs);
  if (was_free == now_free) return;
  if (now_free) {
    ++free_blocks_count_;
  } else {
    --free_blocks_count_;
  }
  UpdateGauges();
}

void StaticBlockFtl::UpdateGauges() {
  free_blocks_.Set(static_cast<double>(free_blocks_count_ + spares_free_count_));
  spare_blocks_free_.Set(static_cast<double>(spares_free_count_));
}

// ------------------------------------------------------------------ placement

FlashPlace StaticBlockFtl::PlaceOf(uint64_t logical_block) const {
  CHECK_LT(logical_block, logical_blocks_);
  const flash::FlashAddr a = g_.ToAddr(flash::Ppn{PhysicalBlockOf(logical_block) * ppb_});
  return FlashPlace{a.channel, a.chip, a.die, a.plane, a.block};
}

uint64_t StaticBlockFtl::PhysicalBlockOf(uint64_t b) const {
  return static_cast<uint64_t>(PlaneOf(b)) * g_.blocks_per_plane + blocks_[b].slot_block;
}

bool StaticBlockFtl::Mapped(Lpn l) const {
  const uint64_t b = l.v / ppb_;
  const auto p = static_cast<uint32_t>(l.v % ppb_);
  return p < blocks_[b].write_ptr && (trimmed_[l.v / 64] >> (l.v % 64) & 1) == 0;
}

bool StaticBlockFtl::Idle() const {
  return in_flight_ == 0 && waiting_ == 0 && erasing_ == 0 && noflash_head_ == nullptr;
}

uint64_t StaticBlockFtl::write_errors(FtlStatus s) const {
  switch (s) {
    case FtlStatus::kWriteOutOfOrder: return errors_out_of_order_.value();
    case FtlStatus::kOverwrite: return errors_overwrite_.value();
    case FtlStatus::kOk: break;
  }
  return 0;
}

// ------------------------------------------------------------------ host ops

uint32_t StaticBlockFtl::AcquireSlot() {
  uint32_t i;
  if (free_slots_.empty()) {
    CHECK_LT(slots_.size(), size_t{UINT32_MAX}) << "commands in flight exceed 32-bit slot numbers";
    i = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
    slots_.back().cmd.client = this;
  } else {
    i = free_slots_.back();
    free_slots_.pop_back();
  }
  ++in_flight_;
  return i;
}

void StaticBlockFtl::Submit(FtlOp* op) {
  CHECK(op->lpn.valid() && op->lpn.v < logical_pages()) << "lpn " << op->lpn.v << " out of range";
  op->submit_time = queue_->now();
  op->next = nullptr;
  const uint64_t b = op->lpn.v / ppb_;
  const auto page = static_cast<uint32_t>(op->lpn.v % ppb_);
  BlockState& bs = blocks_[b];
  if (op->kind == FtlOp::Kind::kRead) {
    if (!Mapped(op->lpn)) {
      unmapped_reads_.Inc();
      CompleteWithoutFlash(op);
      return;
    }
    const uint32_t i = AcquireSlot();
    Slot& s = slots_[i];
    s.op = op;
    s.block = b;
    s.cmd.kind = flash::FlashOpKind::kRead;
    s.cmd.source = flash::CmdSource::kHost;
    s.cmd.ppn = flash::Ppn{PhysicalBlockOf(b) * ppb_ + page};
    s.cmd.tag = Tag(CmdKind::kRead, i);
    ++bs.in_flight;
    array_->Submit(&s.cmd);
    return;
  }
  if (page != bs.write_ptr) {
    op->status = page < bs.write_ptr ? FtlStatus::kOverwrite : FtlStatus::kWriteOutOfOrder;
    (page < bs.write_ptr ? errors_overwrite_ : errors_out_of_order_).Inc();
    CompleteWithoutFlash(op);
    return;
  }
  const bool was_free = IsFree(bs);
  ++bs.write_ptr;
  Account(bs, was_free);
  if (bs.erase_needed || bs.erasing) {
    write_stalls_.Inc();
    ++waiting_;
    if (bs.wait_tail == nullptr) {
      bs.wait_head = op;
    } else {
      bs.wait_tail->next = op;
    }
    bs.wait_tail = op;
    return;
  }
  IssueProgram(op, b);
}

void StaticBlockFtl::IssueProgram(FtlOp* op, uint64_t b) {
  BlockState& bs = blocks_[b];
  const uint32_t i = AcquireSlot();
  Slot& s = slots_[i];
  s.op = op;
  s.block = b;
  s.cmd.kind = flash::FlashOpKind::kProgram;
  s.cmd.source = flash::CmdSource::kHost;
  s.cmd.ppn = flash::Ppn{PhysicalBlockOf(b) * ppb_ + op->lpn.v % ppb_};
  s.cmd.tag = Tag(CmdKind::kProgram, i);
  ++bs.in_flight;
  bs.dirty = true;
  array_->Submit(&s.cmd);
}

void StaticBlockFtl::CompleteWithoutFlash(FtlOp* op) {
  op->finish_time = queue_->now() + cfg_.unmapped_read_latency;
  op->next = nullptr;
  if (noflash_tail_ == nullptr) {
    noflash_head_ = op;
  } else {
    noflash_tail_->next = op;
  }
  noflash_tail_ = op;
  if (!noflash_event_.scheduled()) queue_->Schedule(&noflash_event_, noflash_head_->finish_time);
}

void StaticBlockFtl::OnNoFlashDue() {
  const sim::SimTime now = queue_->now();
  while (noflash_head_ != nullptr && noflash_head_->finish_time <= now) {
    FtlOp* op = noflash_head_;
    noflash_head_ = op->next;
    if (noflash_head_ == nullptr) noflash_tail_ = nullptr;
    op->next = nullptr;
    if (op->kind == FtlOp::Kind::kRead) host_reads_.Inc();
    op->client->OnFtlDone(op);
  }
  if (noflash_head_ != nullptr && !noflash_event_.scheduled()) {
    queue_->Schedule(&noflash_event_, noflash_head_->finish_time);
  }
}

// ------------------------------------------------------------------ trim and erase

void StaticBlockFtl::Trim(Lpn first, uint64_t count) {
  trim_commands_.Inc();
  if (!first.valid() || first.v >= logical_pages()) return;
  const uint64_t end = std::min(logical_pages(), first.v + std::min(count, logical_pages()));
  uint64_t l = first.v;
  while (l < end) {
    const uint64_t b = l / ppb_;
    const uint64_t block_start = b * ppb_;
    const uint64_t block_end = block_start + ppb_;
    if (l == block_start && end >= block_end) {
      TrimWholeBlock(b);
      l = block_end;
      continue;
    }
    const uint64_t stop = std::min(end, block_end);
    for (; l < stop; ++l) {
      if (!Mapped(Lpn{l})) continue;
      trimmed_[l / 64] |= uint64_t{1} << (l % 64);
      trims_.Inc();
    }
  }
}

void StaticBlockFtl::TrimWholeBlock(uint64_t b) {
  BlockState& bs = blocks_[b];
  for (uint64_t l = b * ppb_; l < (b + 1) * ppb_; ++l) {
    if (Mapped(Lpn{l})) trims_.Inc();
  }
  for (uint64_t l = b * ppb_; l < (b + 1) * ppb_; l += 64 - l % 64) {
    const uint64_t last = std::min<uint64_t>((b + 1) * ppb_, l + 64 - l % 64);
    const uint64_t n = last - l;
    const uint64_t mask = (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << (l % 64);
    trimmed_[l / 64] &= ~mask;
  }
  // Writes accepted after an earlier trim and still waiting for its erase:
  // their data is trimmed before it reached flash.
  const bool was_free = IsFree(bs);
  while (bs.wait_head != nullptr) {
    FtlOp* op = bs.wait_head;
    bs.wait_head = op->next;
    --waiting_;
    dropped_by_trim_.Inc();
    write_stall_time_.Record((queue_->now() - op->submit_time).ns());
    CompleteWithoutFlash(op);
  }
  bs.wait_tail = nullptr;
  bs.write_ptr = 0;
  if (bs.dirty) {
    bs.erase_needed = true;
    trim_erases_.Inc();
  }
  Account(bs, was_free);
  MaybeErase(b);
}

void StaticBlockFtl::MaybeErase(uint64_t b) {
  BlockState& bs = blocks_[b];
  if (!bs.erase_needed || bs.erasing || bs.in_flight > 0) return;
  bs.erase_needed = false;
  bs.erasing = true;
  bs.dirty = false;
  ++erasing_;
  const uint32_t i = AcquireSlot();
  Slot& s = slots_[i];
  s.op = nullptr;
  s.block = b;
  s.cmd.kind = flash::FlashOpKind::kErase;
  s.cmd.source = flash::CmdSource::kGc;
  s.cmd.ppn = flash::Ppn{PhysicalBlockOf(b) * ppb_};
  s.cmd.tag = Tag(CmdKind::kErase, i);
  array_->Submit(&s.cmd);
}

void StaticBlockFtl::OnEraseDone(uint64_t b) {
  BlockState& bs = blocks_[b];
  const bool was_free = IsFree(bs);
  bs.erasing = false;
  --erasing_;
  erases_.Inc();
  const uint64_t phys = PhysicalBlockOf(b);
  ++erase_count_[phys];
  if (erase_limit_ > 0 && erase_count_[phys] >= erase_limit_ && !past_limit_[phys]) Retire(b);
  Account(bs, was_free);
  if (bs.erase_needed) {  // trimmed again after new programs: erase once more
    MaybeErase(b);
    return;
  }
  while (bs.wait_head != nullptr) {
    FtlOp* op = bs.wait_head;
    bs.wait_head = op->next;
    op->next = nullptr;
    --waiting_;
    write_stall_time_.Record((queue_->now() - op->submit_time).ns());
    IssueProgram(op, b);
  }
  bs.wait_tail = nullptr;
}

void StaticBlockFtl::Retire(uint64_t b) {
  const uint32_t plane = PlaneOf(b);
  std::vector<uint32_t>& spares = free_spares_[plane];
  const uint64_t phys = PhysicalBlockOf(b);
  if (spares.empty()) {
    past_limit_[phys] = 1;
    past_limit_count_.Inc();
    return;
  }
  // The block was just erased and holds no data: the logical block moves to
  // the erased spare and nothing is copied.
  blocks_[b].slot_block = spares.back();
  spares.pop_back();
  --spares_free_count_;
  retired_.Inc();
  UpdateGauges();
}

// ------------------------------------------------------------------ completions

void StaticBlockFtl::OnFlashComplete(flash::FlashCommand* cmd) {
  const auto kind = static_cast<CmdKind>(cmd->tag >> 56);
  const auto i = static_cast<uint32_t>(cmd->tag & 0xFFFFFFFFu);
  CHECK_LT(i, slots_.size()) << "completion of a command this FTL did not submit (tag " << cmd->tag << ")";
  Slot& s = slots_[i];
  const uint64_t b = s.block;
  FtlOp* op = s.op;
  s.op = nullptr;
  free_slots_.push_back(i);
  --in_flight_;
  switch (kind) {
    case CmdKind::kRead:
    case CmdKind::kProgram:
      --blocks_[b].in_flight;
      (kind == CmdKind::kRead ? host_reads_ : host_writes_).Inc();
      op->finish_time = queue_->now();
      MaybeErase(b);
      op->client->OnFtlDone(op);
      return;
    case CmdKind::kErase:
      OnEraseDone(b);
      return;
  }
  LOG(FATAL) << "completion of a command this FTL did not submit (tag " << cmd->tag << ")";
}

// ------------------------------------------------------------------ precondition

void StaticBlockFtl::Precondition(const PreconditionSpec& spec) {
  CHECK(Idle()) << "Precondition requires an idle FTL";
  CHECK_EQ(spec.random_overwrites, 0.0) << "static_block preconditions by a sequential fill only (Validate)";
  const auto pages = static_cast<uint64_t>(std::floor(spec.fill_fraction * static_cast<double>(logical_pages())));
  uint64_t done = 0;
  for (uint64_t b = 0; b < logical_blocks_ && done < pages; ++b) {
    BlockState& bs = blocks_[b];
    CHECK(IsFree(bs));
    bs.write_ptr = static_cast<uint32_t>(std::min<uint64_t>(ppb_, pages - done));
    bs.dirty = true;
    done += bs.write_ptr;
    Account(bs, true);
  }
  pre_host_writes_.Add(static_cast<double>(done));
  pre_wa_.Set(done > 0 ? 1.0 : 0.0);
  UpdateGauges();
}

// ------------------------------------------------------------------ registration

namespace {
std::unique_ptr<Ftl> Make(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                          const sim::StatGroup& stats) {
  return std::make_unique<StaticBlockFtl>(cfg, array, queue, stats);
}
}  // namespace

const sim::Registrar<FtlKindInfo> kRegisteredStaticBlock{
    {kKind,
     "static block-mapped S-FTL of ParaFS: fixed logical-to-physical block map striped over channels, pages "
     "written in order, whole-block trim erases, no FTL GC",
     &StaticBlockFtl::Validate, &StaticBlockFtl::LogicalPages, &Make,
     sim::ImplSection::Of<StaticBlockConfig>(kKind, "static block-mapped FTL (ftl.kind: static_block)"),
     &StaticBlockFtl::MemoryBytes, /*fixed_placement=*/true}};

}  // namespace ftl
