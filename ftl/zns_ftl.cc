#include "ftl/zns_ftl.h"

#include <fmt/format.h>
#include <glog/logging.h>

#include <algorithm>
#include <cmath>

#include "ftl/ftl_factory.h"
#include "sim/registry.h"

namespace ftl {

namespace {
constexpr const char* kKind = "zns";
constexpr uint32_t kNone = UINT32_MAX;
constexpr const char* kErrorNames[] = {"ok",          "invalid_write",   "boundary",
                                       "full",        "read_only",       "offline",
                                       "too_many_active", "too_many_open", "invalid_transition",
                                       "invalid_field"};
constexpr const char* kActionNames[] = {"open", "close", "finish", "reset", "offline"};

bool IsOpen(ZoneState s) { return s == ZoneState::kImplicitlyOpen || s == ZoneState::kExplicitlyOpen; }
bool IsActive(ZoneState s) { return IsOpen(s) || s == ZoneState::kClosed; }

// The shape of the zones on `g` (see the header): checked by Validate.
struct Shape {
  uint32_t zone_dies = 0, lanes = 0, groups = 0, rows = 0;
  uint64_t zone_pages = 0, cap_pages = 0, zones_per_group = 0;
};
}  // namespace

const char* ZoneStateName(ZoneState s) {
  switch (s) {
    case ZoneState::kEmpty: return "empty";
    case ZoneState::kImplicitlyOpen: return "implicitly_open";
    case ZoneState::kExplicitlyOpen: return "explicitly_open";
    case ZoneState::kClosed: return "closed";
    case ZoneState::kFull: return "full";
    case ZoneState::kReadOnly: return "read_only";
    case ZoneState::kOffline: return "offline";
  }
  return "?";
}
const char* ZoneActionName(ZoneAction a) { return kActionNames[static_cast<int>(a)]; }
const char* ZoneErrorName(ZoneError e) { return kErrorNames[static_cast<int>(e)]; }

// ------------------------------------------------------------------ config

void ZnsConfig::Describe(sim::Schema<ZnsConfig>& s) {
  s.Param("zone_size", &ZnsConfig::zone_size, "0",
          "LBA span of a zone (Zone Size), a multiple of the flash page size; 0 = the flash of one row: one "
          "block on each plane of the zone's dies");
  s.Param("zone_capacity", &ZnsConfig::zone_capacity, "0",
          "Writable bytes of a zone (Zone Capacity), a multiple of the page size, at most zone_size; the LBAs "
          "between capacity and size have no flash; 0 = zone_size");
  s.Param("zone_dies", &ZnsConfig::zone_dies, "0",
          "Dies a zone's pages are striped over (page by page across their planes), taken channel-first; "
          "divides the device's dies; 0 = all dies");
  s.Param("max_open", &ZnsConfig::max_open, "0",
          "Max Open Resources: zones implicitly or explicitly open at once; 0 = no limit");
  s.Param("max_active", &ZnsConfig::max_active, "0",
          "Max Active Resources: zones open or closed at once; at least max_open; 0 = no limit");
  s.Param("conventional", &ZnsConfig::conventional, "0",
          "Bytes of the conventional area at the start of the logical space: randomly writable, page-mapped "
          "(the S-FTL's page-mapped area, its ftl.static_block.page_mapped_* keys apply); rounded up to whole "
          "flash blocks; 0 = none");
}

FtlConfig ZnsFtl::InnerConfig(const FtlConfig& cfg) {
  FtlConfig inner = cfg;
  inner.kind = "static_block";
  inner.kinds.Mutable<StaticBlockConfig>("static_block").page_mapped = cfg.kinds.Get<ZnsConfig>(kKind).conventional;
  return inner;
}

uint64_t ZnsFtl::ConventionalBlocks(const FtlConfig& cfg, const flash::Geometry& g) {
  return StaticBlockFtl::AreaBlocks(InnerConfig(cfg), g);
}

namespace {
sim::Result<Shape> ShapeOf(const FtlConfig& cfg, const flash::Geometry& g) {
  const ZnsConfig& z = cfg.kinds.Get<ZnsConfig>(kKind);
  Shape s;
  const uint32_t dies = g.dies();
  s.zone_dies = z.zone_dies == 0 ? dies : z.zone_dies;
  if (s.zone_dies > dies || dies % s.zone_dies != 0) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.zns.zone_dies: {} does not divide the device's {} dies", s.zone_dies, dies));
  }
  s.lanes = s.zone_dies * g.planes_per_die;
  s.groups = dies / s.zone_dies;
  const uint64_t page = g.page_size.value;
  const uint64_t row_pages = uint64_t{s.lanes} * g.pages_per_block;
  const uint64_t size = z.zone_size.value == 0 ? row_pages * page : z.zone_size.value;
  const uint64_t cap = z.zone_capacity.value == 0 ? size : z.zone_capacity.value;
  if (size % page != 0) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.zns.zone_size: {} B is not a multiple of the flash page size {} B", size, page));
  }
  if (cap % page != 0) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.zns.zone_capacity: {} B is not a multiple of the flash page size {} B", cap, page));
  }
  if (cap > size) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.zns.zone_capacity: {} B exceeds ftl.zns.zone_size {} B", cap, size));
  }
  s.zone_pages = size / page;
  s.cap_pages = cap / page;
  s.rows = static_cast<uint32_t>((s.cap_pages + row_pages - 1) / row_pages);
  const FtlConfig inner = ZnsFtl::InnerConfig(cfg);
  const uint64_t area = StaticBlockFtl::AreaBlocks(inner, g);
  const uint64_t pool = area == 0 ? 0 : area + StaticBlockFtl::PoolSpare(inner, g);
  const uint64_t per_plane = g.blocks_per_plane - StaticBlockFtl::SparesPerPlane(inner, g);
  const uint64_t pool_rows = (pool + g.planes() - 1) / g.planes();
  const uint64_t free_rows = per_plane > pool_rows ? per_plane - pool_rows : 0;
  s.zones_per_group = free_rows / s.rows;
  if (s.zones_per_group == 0) {
    return sim::Status::InvalidInput(fmt::format(
        "ftl.zns.zone_capacity: a zone needs {} blocks on each of its {} planes, but a plane has only {} "
        "blocks for zones (spares and the conventional area's pool taken); make the zone smaller or stripe it "
        "over more dies (ftl.zns.zone_dies)",
        s.rows, s.lanes, free_rows));
  }
  return s;
}
}  // namespace

sim::Status ZnsFtl::Validate(const FtlConfig& cfg, const flash::Geometry& g) {
  const StaticBlockConfig& sb = cfg.kinds.Get<StaticBlockConfig>("static_block");
  if (sb.page_mapped.value != 0) {
    return sim::Status::InvalidInput(
        "ftl.static_block.page_mapped: set with ftl.kind zns; the conventional area is ftl.zns.conventional");
  }
  if (cfg.precondition.enabled) {
    return sim::Status::InvalidInput(
        "ftl.precondition.enabled: a ZNS device starts with every zone empty (write the zones to fill it)");
  }
  FS_RETURN_IF_ERROR(StaticBlockFtl::Validate(InnerConfig(cfg), g));
  const ZnsConfig& z = cfg.kinds.Get<ZnsConfig>(kKind);
  if (z.max_open != 0 && z.max_active != 0 && z.max_open > z.max_active) {
    return sim::Status::InvalidInput(fmt::format(
        "ftl.zns.max_open: {} exceeds ftl.zns.max_active {} (an open zone is active)", z.max_open, z.max_active));
  }
  auto shape = ShapeOf(cfg, g);
  if (!shape.ok()) return shape.status();
  const uint64_t zones = shape.value().zones_per_group * shape.value().groups;
  if (zones >= kNone) return sim::Status::InvalidInput("ftl.zns.zone_size: too many zones (2^32 or more)");
  return sim::Status::Ok();
}

uint64_t ZnsFtl::LogicalPages(const FtlConfig& cfg, const flash::Geometry& g) {
  const Shape s = ShapeOf(cfg, g).value();
  return ConventionalBlocks(cfg, g) * g.pages_per_block + s.zones_per_group * s.groups * s.zone_pages;
}

ZoneLayout ZnsFtl::LayoutOf(const FtlConfig& cfg, const flash::Geometry& g) {
  const Shape s = ShapeOf(cfg, g).value();
  const ZnsConfig& z = cfg.kinds.Get<ZnsConfig>(kKind);
  return ZoneLayout{ConventionalBlocks(cfg, g) * g.pages_per_block, s.zones_per_group * s.groups, s.zone_pages,
                    s.cap_pages, z.max_open, z.max_active};
}

uint64_t ZnsFtl::MemoryBytes(const FtlConfig& cfg, const flash::Geometry& g) {
  const Shape s = ShapeOf(cfg, g).value();
  const uint64_t zones = s.zones_per_group * s.groups;
  return StaticBlockFtl::MemoryBytes(InnerConfig(cfg), g) + zones * sizeof(Zone) +
         zones * s.rows * s.lanes * 8 + g.blocks() * 4;
}

// ------------------------------------------------------------------ construction

ZnsFtl::ZnsFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue, const sim::StatGroup& stats)
    : queue_(queue), ppb_(array->geometry().pages_per_block) {
  const flash::Geometry& g = array->geometry();
  const sim::Status st = Validate(cfg, g);
  CHECK(st.ok()) << st.message();
  inner_ = std::make_unique<StaticBlockFtl>(InnerConfig(cfg), array, queue, stats);
  const ZnsConfig& zc = cfg.kinds.Get<ZnsConfig>(kKind);
  const Shape s = ShapeOf(cfg, g).value();
  conv_pages_ = inner_->fixed_from() * ppb_;
  zone_dies_ = s.zone_dies;
  lanes_ = s.lanes;
  groups_ = s.groups;
  rows_ = s.rows;
  zone_pages_ = s.zone_pages;
  cap_pages_ = s.cap_pages;
  zones_ = s.zones_per_group * s.groups;
  max_open_ = zc.max_open;
  max_active_ = zc.max_active;
  z_.resize(zones_);

  // The S-FTL's fixed blocks of each plane, in slot order, the planes
  // numbered in the channel-first die order (see the header).
  const uint32_t planes = g.planes();
  std::vector<std::vector<uint64_t>> by_plane(planes);
  for (uint64_t b = inner_->fixed_from(); b < inner_->logical_blocks(); ++b) {
    const FlashPlace p = inner_->PlaceOf(b);
    const uint32_t die_order = (p.chip * g.dies_per_chip + p.die) * g.channels + p.channel;
    by_plane[die_order * g.planes_per_die + p.plane].push_back(b);
  }
  zone_blocks_.assign(zones_ * rows_ * lanes_, 0);
  zone_of_block_.assign(inner_->logical_blocks(), kNone);
  for (uint64_t z = 0; z < zones_; ++z) {
    const uint64_t group = z % groups_, zg = z / groups_;
    for (uint32_t r = 0; r < rows_; ++r) {
      for (uint32_t l = 0; l < lanes_; ++l) {
        const std::vector<uint64_t>& list = by_plane[group * lanes_ + l];
        CHECK_LT(zg * rows_ + r, list.size());
        const uint64_t b = list[zg * rows_ + r];
        zone_blocks_[(z * rows_ + r) * lanes_ + l] = b;
        zone_of_block_[b] = static_cast<uint32_t>(z);
      }
    }
  }
  inner_->SetEraseDoneHook([this](uint64_t b) { OnEraseDone(b); });

  const sim::StatGroup zs = stats.Group("zns");
  zs.Add(&zones_g_, "zones", "zones", "Zones of the device");
  zs.Add(&zone_pages_g_, "zone_pages", "pages", "Zone size (LBA span) in flash pages");
  zs.Add(&zone_cap_g_, "zone_capacity", "pages", "Zone capacity (writable pages per zone)");
  zs.Add(&open_g_, "open_zones", "zones", "Zones implicitly or explicitly open now");
  zs.Add(&active_g_, "active_zones", "zones", "Zones open or closed now");
  zs.Add(&full_g_, "full_zones", "zones", "Zones full now");
  for (int a = 0; a < 5; ++a) {
    zs.Add(&commands_[a], fmt::format("commands.{}", kActionNames[a]), "commands",
           fmt::format("Accepted Zone Management Send {} commands", kActionNames[a]));
  }
  zs.Add(&appends_, "appends", "commands", "Accepted Zone Append commands");
  for (int e = 1; e < 10; ++e) {
    zs.Add(&errors_[e], fmt::format("errors.{}", kErrorNames[e]), "commands",
           fmt::format("Writes, appends or zone commands refused with {}", kErrorNames[e]));
  }
  zs.Add(&implicit_closes_, "implicit_closes", "zones",
         "Implicitly opened zones the device closed to open another (at max_open)");
  zs.Add(&reset_blocks_, "reset_blocks", "blocks", "Flash blocks Zone Resets sent to erase");
  zones_g_.Set(static_cast<double>(zones_));
  zone_pages_g_.Set(static_cast<double>(zone_pages_));
  zone_cap_g_.Set(static_cast<double>(cap_pages_));
}

ZnsFtl::~ZnsFtl() { inner_->SetEraseDoneHook(nullptr); }

uint64_t ZnsFtl::SftlLpnOf(uint64_t z, uint64_t o) const {
  const uint64_t row_pages = uint64_t{lanes_} * ppb_;
  const uint64_t r = o / row_pages, q = o % row_pages;
  const uint64_t b = zone_blocks_[(z * rows_ + r) * lanes_ + q % lanes_];
  return b * ppb_ + q / lanes_;
}

ZnsFtl::Inner* ZnsFtl::AllocInner() {
  if (free_inner_ == nullptr) {
    inners_.push_back(std::make_unique<Inner>());
    return inners_.back().get();
  }
  Inner* in = free_inner_;
  free_inner_ = in->free_next;
  return in;
}

// ------------------------------------------------------------------ I/O

void ZnsFtl::Submit(FtlOp* op) {
  op->submit_time = queue_->now();
  if (op->kind == FtlOp::Kind::kZoneMgmt) {
    if (op->lpn.v < conv_pages_ || (op->lpn.v - conv_pages_) % zone_pages_ != 0 ||
        op->lpn.v >= logical_pages()) {
      Fail(op, ZoneError::kInvalidField);
      return;
    }
    bool deferred = false;
    const ZoneError e = Manage(ZoneOf(op->lpn.v), op->zone_action, op, &deferred);
    UpdateGauges();
    if (e != ZoneError::kOk) {
      Fail(op, e);
    } else if (!deferred) {
      inner_->CompleteLater(op);
    }
    return;
  }
  if (op->lpn.v < conv_pages_) {
    inner_->Submit(op);  // the conventional area: the S-FTL's own pages
    return;
  }
  const uint64_t z = ZoneOf(op->lpn.v);
  const uint64_t o = op->lpn.v - ZoneStart(z);
  if (op->kind == FtlOp::Kind::kWrite && o >= z_[z].wp) {
    // Not admitted (Zoned::AdmitWrite): the host interface admits every
    // zone write; a page past the pointer would break the zone's order.
    Fail(op, ZoneError::kInvalidWrite);
    return;
  }
  if (o >= cap_pages_ || z_[z].state == ZoneState::kOffline) {
    inner_->CompleteLater(op);  // no flash behind these LBAs: reads return unwritten data
    return;
  }
  Inner* in = AllocInner();
  in->kind = op->kind;
  in->lpn = Lpn{SftlLpnOf(z, o)};
  in->client = this;
  in->temperature = op->temperature;
  in->status = FtlStatus::kOk;
  in->outer = op;
  inner_->Submit(in);
}

void ZnsFtl::OnFtlDone(FtlOp* f) {
  Inner* in = static_cast<Inner*>(f);
  FtlOp* op = in->outer;
  op->finish_time = in->finish_time;
  op->status = in->status;
  in->outer = nullptr;
  in->free_next = free_inner_;
  free_inner_ = in;
  op->client->OnFtlDone(op);
}

void ZnsFtl::Fail(FtlOp* op, ZoneError e) {
  CountError(e);
  op->status = FtlStatus::kZoneError;
  op->zone_error = e;
  inner_->CompleteLater(op);
}

void ZnsFtl::CountError(ZoneError e) { errors_[static_cast<int>(e)].Inc(); }

void ZnsFtl::Trim(Lpn first, uint64_t count) {
  const uint64_t end = std::min(first.v + count, conv_pages_);
  if (first.v < end) inner_->Trim(first, end - first.v);
}

void ZnsFtl::Precondition(const PreconditionSpec&) {
  LOG(FATAL) << "ZnsFtl::Precondition: refused by Validate (zones start empty)";
}

flash::Ppn ZnsFtl::Locate(Lpn l) const {
  if (l.v < conv_pages_) return inner_->Locate(l);
  const uint64_t z = ZoneOf(l.v), o = l.v - ZoneStart(z);
  if (o >= z_[z].wp || o >= cap_pages_) return flash::kInvalidPpn;
  return inner_->Locate(Lpn{SftlLpnOf(z, o)});
}

// ------------------------------------------------------------------ zones

ZoneInfo ZnsFtl::Report(uint64_t z) const {
  CHECK_LT(z, zones_);
  ZoneInfo i;
  i.state = z_[z].state;
  i.start = ZoneStart(z);
  i.capacity = cap_pages_;
  i.write_pointer = i.start + z_[z].wp;
  return i;
}

ZoneError ZnsFtl::OpenZone(uint64_t z, bool explicit_open) {
  Zone& zn = z_[z];
  CHECK(zn.state == ZoneState::kEmpty || zn.state == ZoneState::kClosed);
  if (zn.state == ZoneState::kEmpty && max_active_ != 0 && active_ >= max_active_) return ZoneError::kTooManyActive;
  if (max_open_ != 0 && open_.size() >= max_open_) {
    // Free an open resource by closing the implicitly opened zone opened
    // least recently; explicitly opened zones stay open.
    int victim = -1;
    for (size_t i = 0; i < open_.size(); ++i) {
      const Zone& o = z_[open_[i]];
      if (o.state == ZoneState::kImplicitlyOpen && (victim < 0 || o.open_seq < z_[open_[victim]].open_seq)) {
        victim = static_cast<int>(i);
      }
    }
    if (victim < 0) return ZoneError::kTooManyOpen;
    const uint32_t v = open_[victim];
    LeaveOpen(v);
    z_[v].state = ZoneState::kClosed;  // written (it was implicitly opened by a write)
    implicit_closes_.Inc();
  }
  if (zn.state == ZoneState::kEmpty) ++active_;
  zn.state = explicit_open ? ZoneState::kExplicitlyOpen : ZoneState::kImplicitlyOpen;
  zn.open_seq = ++open_counter_;
  open_.push_back(static_cast<uint32_t>(z));
  return ZoneError::kOk;
}

void ZnsFtl::LeaveOpen(uint64_t z) {
  auto it = std::find(open_.begin(), open_.end(), static_cast<uint32_t>(z));
  CHECK(it != open_.end());
  open_.erase(it);
}

void ZnsFtl::ToFull(uint64_t z) {
  Zone& zn = z_[z];
  if (IsOpen(zn.state)) LeaveOpen(z);
  if (IsActive(zn.state)) --active_;
  zn.state = ZoneState::kFull;
  zn.wp = cap_pages_;
  ++full_;
}

ZoneError ZnsFtl::AdmitWrite(uint64_t lpn, uint64_t pages, bool append, uint64_t* first) {
  CHECK_GT(pages, 0u);
  CHECK_GE(lpn, conv_pages_);
  ZoneError e = ZoneError::kOk;
  const uint64_t z = ZoneOf(lpn);
  Zone* zn = z < zones_ ? &z_[z] : nullptr;
  const uint64_t o = lpn - ZoneStart(std::min(z, zones_ - 1));
  if (zn == nullptr || (append && o != 0)) {
    e = ZoneError::kInvalidField;
  } else if (zn->state == ZoneState::kOffline) {
    e = ZoneError::kOffline;
  } else if (zn->state == ZoneState::kReadOnly) {
    e = ZoneError::kReadOnly;
  } else if (zn->state == ZoneState::kFull) {
    e = ZoneError::kFull;
  } else if (!append && o != zn->wp) {
    e = ZoneError::kInvalidWrite;
  } else if (zn->wp + pages > cap_pages_ || (!append && o + pages > zone_pages_)) {
    e = ZoneError::kBoundary;
  } else if (zn->state == ZoneState::kEmpty || zn->state == ZoneState::kClosed) {
    e = OpenZone(z, false);
  }
  if (e != ZoneError::kOk) {
    CountError(e);
    return e;
  }
  *first = ZoneStart(z) + zn->wp;
  zn->wp += pages;
  if (append) appends_.Inc();
  if (zn->wp == cap_pages_) ToFull(z);
  UpdateGauges();
  return ZoneError::kOk;
}

ZoneError ZnsFtl::Manage(uint64_t z, ZoneAction a, FtlOp* op, bool* deferred) {
  Zone& zn = z_[z];
  const ZoneState s = zn.state;
  if (a == ZoneAction::kOffline) {
    if (s == ZoneState::kOffline) return ZoneError::kOffline;
    if (s != ZoneState::kReadOnly) return ZoneError::kInvalidTransition;
    zn.state = ZoneState::kOffline;
    commands_[static_cast<int>(a)].Inc();
    return ZoneError::kOk;
  }
  if (s == ZoneState::kOffline) return ZoneError::kOffline;
  if (s == ZoneState::kReadOnly) return ZoneError::kReadOnly;
  switch (a) {
    case ZoneAction::kOpen:
      if (s == ZoneState::kFull) return ZoneError::kInvalidTransition;
      if (s == ZoneState::kImplicitlyOpen) {
        zn.state = ZoneState::kExplicitlyOpen;
      } else if (s != ZoneState::kExplicitlyOpen) {
        const ZoneError e = OpenZone(z, true);
        if (e != ZoneError::kOk) return e;
      }
      break;
    case ZoneAction::kClose:
      if (s == ZoneState::kEmpty || s == ZoneState::kFull) return ZoneError::kInvalidTransition;
      if (IsOpen(s)) {
        LeaveOpen(z);
        if (zn.wp == 0) {
          zn.state = ZoneState::kEmpty;
          --active_;
        } else {
          zn.state = ZoneState::kClosed;
        }
      }
      break;
    case ZoneAction::kFinish:
      if (s == ZoneState::kEmpty && max_active_ != 0 && active_ >= max_active_) return ZoneError::kTooManyActive;
      if (s != ZoneState::kFull) ToFull(z);
      break;
    case ZoneAction::kReset: {
      if (s == ZoneState::kFull) --full_;
      if (IsOpen(s)) LeaveOpen(z);
      if (IsActive(s)) --active_;
      zn.state = ZoneState::kEmpty;
      zn.wp = 0;
      uint32_t pending = 0;
      for (uint64_t i = 0; i < uint64_t{rows_} * lanes_; ++i) {
        const uint64_t b = zone_blocks_[z * rows_ * lanes_ + i];
        if (inner_->WrittenPages(b) > 0) {
          inner_->Trim(Lpn{b * ppb_}, ppb_);
          reset_blocks_.Inc();
        }
        if (inner_->ErasePending(b)) ++pending;
      }
      if (pending > 0 && zn.reset_op == nullptr) {
        zn.reset_pending = pending;
        zn.reset_op = op;
        *deferred = true;
      }
      break;
    }
    case ZoneAction::kOffline:
      break;
  }
  commands_[static_cast<int>(a)].Inc();
  return ZoneError::kOk;
}

void ZnsFtl::OnEraseDone(uint64_t b) {
  const uint32_t z = zone_of_block_[b];
  if (z == kNone) return;
  Zone& zn = z_[z];
  if (zn.reset_op == nullptr || inner_->ErasePending(b)) return;
  CHECK_GT(zn.reset_pending, 0u);
  if (--zn.reset_pending > 0) return;
  FtlOp* op = zn.reset_op;
  zn.reset_op = nullptr;
  op->finish_time = queue_->now();
  op->client->OnFtlDone(op);
}

void ZnsFtl::FailZone(uint64_t z, ZoneState state) {
  CHECK(state == ZoneState::kReadOnly || state == ZoneState::kOffline);
  CHECK_LT(z, zones_);
  Zone& zn = z_[z];
  if (zn.state == ZoneState::kFull) --full_;
  if (IsOpen(zn.state)) LeaveOpen(z);
  if (IsActive(zn.state)) --active_;
  zn.state = state;
  UpdateGauges();
}

void ZnsFtl::UpdateGauges() {
  open_g_.Set(static_cast<double>(open_.size()));
  active_g_.Set(static_cast<double>(active_));
  full_g_.Set(static_cast<double>(full_));
}

// ------------------------------------------------------------------ registration

namespace {
std::unique_ptr<Ftl> Make(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                          const sim::StatGroup& stats) {
  return std::make_unique<ZnsFtl>(cfg, array, queue, stats);
}
}  // namespace

const sim::Registrar<FtlKindInfo> kRegisteredZns{
    {kKind,
     "NVMe Zoned Namespace SSD on the S-FTL's flash machinery: zones (size, capacity, striped over 1..all dies) "
     "with write pointers, the ZNS state machine, open/active limits, Zone Append/Reset/Finish, a conventional "
     "page-mapped area",
     &ZnsFtl::Validate, &ZnsFtl::LogicalPages, &Make,
     sim::ImplSection::Of<ZnsConfig>(kKind, "zoned-namespace device (ftl.kind: zns)"), &ZnsFtl::MemoryBytes,
     /*fixed_placement=*/true, &ZnsFtl::ConventionalBlocks, &ZnsFtl::LayoutOf}};

}  // namespace ftl
