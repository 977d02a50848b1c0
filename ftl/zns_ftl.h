// ZnsFtl: an NVMe Zoned Namespace SSD, ftl.kind: zns (the zoned view is
// ftl/zoned.h; the host interface passes it up as ssd::DeviceLayout::zoned).
//
// Built on the S-FTL (ftl/static_block_ftl.h), which it owns: the S-FTL's
// page-mapped area is the conventional area (ftl.zns.conventional bytes,
// rounded up to whole flash blocks; randomly writable, cleaned by the
// S-FTL's own GC), and its fixed logical blocks, each written in page order
// and erased by a whole-block trim, are the zones' flash. The S-FTL's keys
// ftl.static_block.{spare, erase_limit, page_mapped_spare,
// page_mapped_lanes} apply to it; ftl.static_block.page_mapped must stay 0
// (ftl.zns.conventional sets it).
//
// Zone -> flash. A zone stripes over zone_dies dies (ftl.zns.zone_dies; 0 =
// all), i.e. W = zone_dies x planes_per_die planes ("lanes"). Dies are
// taken channel-first (die order: channel fastest, then die of the chip,
// then chip), so a zone over k <= channels dies spans k channels; the dies
// form dies / zone_dies groups and zone z lives on group z % groups. A
// zone's capacity takes R = ceil(capacity / (W x pages_per_block)) rows of
// W flash blocks, one per lane; zone page o is in row o / (W x ppb), lane
// (o mod W x ppb) mod W, page (o mod W x ppb) / W of its block: consecutive
// pages go to consecutive planes, so one zone's sequential writes use all
// its dies at once. Blocks of a plane not enough for a whole row set of a
// zone stay unused. Zone size (the LBA span, ftl.zns.zone_size) may exceed
// the capacity (ftl.zns.zone_capacity) as on shipping devices; the LBAs
// between have no flash: writes there fail, reads return unwritten data.
//
// State machine, limits and errors: ftl/zoned.h (NVMe ZNS). Specifics:
// - Zone Reset trims the zone's written blocks (the S-FTL erases each; tBERS
//   on the flash array, erases counted in the S-FTL's erases) and completes
//   when the last of those erases has completed (at once, after
//   unmapped_read_latency, for a zone with nothing written). The zone is
//   Empty from the command on; writes into it wait for their block's erase.
// - Zone Finish moves the write pointer to the zone's capacity without
//   programming flash (the unwritten pages read as unwritten).
// - Close of an open zone with nothing written makes it Empty, not Closed.
// - The implicit close made to free an open resource picks the implicitly
//   opened zone opened least recently.
// - Read Only / Offline are entered only through FailZone (the flash model
//   has no media failures); Zone Offline moves Read Only to Offline.
// - Precondition is refused (validate): zones start Empty.
//
// Stats under the given group: the S-FTL's (host_writes, erases, ...,
// page_mapped.* for the conventional area) and zns.*: zones, zone_pages,
// zone_capacity (pages), open_zones, active_zones, full_zones (gauges);
// commands.{open,close,finish,reset,offline}, appends (accepted commands);
// errors.<name> (refused commands, by ZoneError); implicit_closes;
// reset_blocks (blocks a reset sent to erase).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "flash/flash_array.h"
#include "ftl/ftl.h"
#include "ftl/ftl_config.h"
#include "ftl/static_block_ftl.h"
#include "ftl/zoned.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/units.h"

namespace ftl {

// ftl.zns.*: the kind's own keys.
struct ZnsConfig {
  sim::Bytes zone_size{0};      // LBA span of a zone; 0 = one row of blocks over the zone's dies
  sim::Bytes zone_capacity{0};  // writable bytes of a zone; 0 = zone_size
  uint32_t zone_dies = 0;       // dies a zone stripes over; 0 = all
  uint32_t max_open = 0;        // 0 = no limit
  uint32_t max_active = 0;      // 0 = no limit
  sim::Bytes conventional{0};   // conventional (page-mapped) area at the start

  static void Describe(sim::Schema<ZnsConfig>& s);
};

class ZnsFtl final : public Ftl, public Zoned, public FtlClient {
 public:
  static sim::Status Validate(const FtlConfig& cfg, const flash::Geometry& g);
  static uint64_t LogicalPages(const FtlConfig& cfg, const flash::Geometry& g);
  static uint64_t MemoryBytes(const FtlConfig& cfg, const flash::Geometry& g);
  static uint64_t ConventionalBlocks(const FtlConfig& cfg, const flash::Geometry& g);
  // The S-FTL's config under `cfg` (kind static_block, page_mapped set).
  static FtlConfig InnerConfig(const FtlConfig& cfg);
  // The layout a ZnsFtl for `cfg` on `g` has (FtlKindInfo::zone_layout).
  static ZoneLayout LayoutOf(const FtlConfig& cfg, const flash::Geometry& g);

  ZnsFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue, const sim::StatGroup& stats);
  ~ZnsFtl() override;

  // Ftl
  uint64_t logical_pages() const override { return conv_pages_ + zones_ * zone_pages_; }
  void Submit(FtlOp* op) override;
  // Trim: the conventional area's pages are unmapped (the S-FTL's area
  // trim); a trim in the zone area does nothing (zones are freed by Zone
  // Reset only, as on a ZNS device, where Deallocate of sequential zones has
  // no effect on the write pointer).
  void Trim(Lpn first, uint64_t count) override;
  void Precondition(const PreconditionSpec& spec) override;
  Zoned* zoned() override { return this; }
  flash::Ppn Locate(Lpn l) const override;

  // Zoned
  uint64_t conventional_pages() const override { return conv_pages_; }
  uint64_t zones() const override { return zones_; }
  uint64_t zone_pages() const override { return zone_pages_; }
  uint64_t zone_capacity() const override { return cap_pages_; }
  uint32_t max_open() const override { return max_open_; }
  uint32_t max_active() const override { return max_active_; }
  uint32_t zone_dies() const override { return zone_dies_; }
  ZoneInfo Report(uint64_t z) const override;
  ZoneError AdmitWrite(uint64_t lpn, uint64_t pages, bool append, uint64_t* first) override;
  void FailZone(uint64_t z, ZoneState state) override;

  // FtlClient (the S-FTL's completions of translated ops)
  void OnFtlDone(FtlOp* op) override;

  // For tests: the S-FTL underneath, and the flash place of zone page o.
  const StaticBlockFtl& inner() const { return *inner_; }
  uint64_t SftlLpnOf(uint64_t z, uint64_t o) const;
  uint32_t open_zones() const { return static_cast<uint32_t>(open_.size()); }
  uint32_t active_zones() const { return active_; }

 private:
  struct Zone {
    ZoneState state = ZoneState::kEmpty;
    uint64_t wp = 0;           // pages written (admitted) since the last reset
    uint64_t open_seq = 0;     // when it was last opened (implicit-close order)
    uint32_t reset_pending = 0;  // erases the pending Zone Reset waits for
    FtlOp* reset_op = nullptr;
  };
  struct Inner : FtlOp {
    FtlOp* outer = nullptr;
    Inner* free_next = nullptr;
  };

  ZoneError Manage(uint64_t z, ZoneAction a, FtlOp* op, bool* deferred);
  // Takes an open resource for zone z (Empty or Closed) and opens it.
  ZoneError OpenZone(uint64_t z, bool explicit_open);
  void LeaveOpen(uint64_t z);
  void ToFull(uint64_t z);
  void Fail(FtlOp* op, ZoneError e);
  void CountError(ZoneError e);
  void OnEraseDone(uint64_t sblock);
  void UpdateGauges();
  Inner* AllocInner();

  std::unique_ptr<StaticBlockFtl> inner_;
  sim::EventQueue* queue_;
  const uint32_t ppb_;
  uint64_t conv_pages_ = 0;
  uint64_t zones_ = 0, zone_pages_ = 0, cap_pages_ = 0;
  uint32_t zone_dies_ = 0, lanes_ = 0, rows_ = 0, groups_ = 0;
  uint32_t max_open_ = 0, max_active_ = 0;
  std::vector<Zone> z_;
  std::vector<uint64_t> zone_blocks_;  // [z][row][lane] -> S-FTL logical block
  std::vector<uint32_t> zone_of_block_;  // S-FTL logical block -> zone (UINT32_MAX: none)
  std::vector<uint32_t> open_;         // open zones
  uint32_t active_ = 0;
  uint64_t open_counter_ = 0;
  std::vector<std::unique_ptr<Inner>> inners_;
  Inner* free_inner_ = nullptr;

  sim::Gauge zones_g_, zone_pages_g_, zone_cap_g_, open_g_, active_g_, full_g_;
  sim::Counter commands_[5];
  sim::Counter appends_, implicit_closes_, reset_blocks_;
  sim::Counter errors_[10];
  uint32_t full_ = 0;
};

}  // namespace ftl
