// BlockManager: erase units, their states and the per-group free pools.
//
// An erase unit is the FTL's unit of allocation, victim selection and erase.
// In per-plane layouts (group_planes = 1) a unit is one flash block and a
// group is one plane. In superblock layouts (group_planes = G > 1) a group is
// G planes and unit k of a group is block k of every one of its planes: the
// unit's pages are written round-robin over the group's planes in the order
// given at construction (page i goes to plane order[i % G], page offset
// i / G), so consecutive pages of a unit share page and block offsets across
// planes (multi-plane friendly), and the whole unit is erased at once.
//
// Unit ids: unit = group * blocks_per_plane + k. With group_planes = 1 and
// identity order, the unit id equals the flash block id.
//
// Unit life cycle (UnitState):
//   kFree --Allocate opens it--> kOpen (in the open slot of one (group, stream),
//   write pointer advancing) --last page allocated--> kClosing (programs may be
//   in flight) --last ProgramDone--> kFull (a victim candidate; the
//   VictimPolicy is told) --SelectVictim--> kVictim --Erase--> kFree.
//   Functional placement allocates in runs instead (AllocateRun), whose
//   programs are done at once: the EndRun of the run that took the last
//   page closes the unit.
//
// Streams: each group has one open unit per Stream (host hot, host cold, GC
// destination hot/cold, translation pages), so GC copies never mix with host
// data. Each unit
// remembers the stream it was opened for.
//
// Valid counts are maintained by the caller (AddValid/RemoveValid when the
// mapping changes). The BlockManager forwards changes of candidates to the
// VictimPolicy, which reads valid(), close_seq() and write_seq() back.
//
// write_seq() counts pages allocated so far (host + GC); it is the clock of
// age-based victim policies and is identical in timed and functional runs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <glog/logging.h>

#include "ftl/divisor.h"
#include "flash/geometry.h"

namespace ftl {

using UnitId = uint32_t;
inline constexpr UnitId kNoUnit = UINT32_MAX;

// Host data (hot, or cold when the host hints it and separation is on) and
// GC destinations; with hot/cold separation, GC copies of data from
// cold-stream units go to kGcCold, so data keeps its class through GC.
// kMap holds translation pages (the flash copy of the mapping table) when
// the FTL caches its mapping table (ftl/map_cache.h).
enum class Stream : uint8_t { kHostHot = 0, kHostCold = 1, kGc = 2, kGcCold = 3, kMap = 4 };
inline constexpr uint32_t kNumStreams = 5;
inline bool IsColdStream(Stream s) { return s == Stream::kHostCold || s == Stream::kGcCold; }

enum class UnitState : uint8_t { kFree, kOpen, kClosing, kFull, kVictim };

class VictimPolicy;

class BlockManager {
 public:
  // `plane_order` lists every plane once; consecutive runs of group_planes
  // entries form the groups (group g = plane_order[g*G .. g*G+G-1]).
  // REQUIRES: group_planes divides geometry.planes(); unit pages < 2^32.
  BlockManager(const flash::Geometry& geometry, uint32_t group_planes, std::vector<uint32_t> plane_order);
  // Identity order, one plane per group.
  explicit BlockManager(const flash::Geometry& geometry);

  // The policy told about candidates; must outlive this object. May be null
  // (then SelectVictim returns kNoUnit).
  void set_policy(VictimPolicy* policy) { policy_ = policy; }

  const flash::Geometry& geometry() const { return geometry_; }
  uint32_t groups() const { return groups_; }
  uint32_t group_planes() const { return group_planes_; }
  uint32_t units_per_group() const { return geometry_.blocks_per_plane; }
  uint64_t units() const { return static_cast<uint64_t>(groups_) * geometry_.blocks_per_plane; }
  uint32_t unit_pages() const { return unit_pages_; }
  // Plane at position j (< group_planes) of group g.
  uint32_t PlaneOf(uint32_t group, uint32_t j) const { return plane_order_[group * group_planes_ + j]; }
  uint32_t GroupOfPlane(uint32_t plane) const { return group_of_plane_[plane]; }

  // --- address translation
  uint32_t GroupOf(UnitId u) const { return static_cast<uint32_t>(per_plane_.Div(u)); }
  // Page i (< unit_pages) of unit u.
  flash::Ppn PpnOf(UnitId u, uint32_t i) const {
    if (group_planes_ == 1) {
      return flash::Ppn{BlockIdOf(u, 0) * geometry_.pages_per_block + i};
    }
    const uint64_t block = BlockIdOf(u, static_cast<uint32_t>(planes_.Mod(i)));
    return flash::Ppn{block * geometry_.pages_per_block + planes_.Div(i)};
  }
  // Flash block id of member j (< group_planes) of unit u.
  uint64_t BlockIdOf(UnitId u, uint32_t j) const {
    if (unit_is_block_) return u;
    const uint32_t g = GroupOf(u);
    const uint32_t k = static_cast<uint32_t>(per_plane_.Mod(u));
    return static_cast<uint64_t>(PlaneOf(g, j)) * geometry_.blocks_per_plane + k;
  }
  UnitId UnitOfBlock(uint64_t block) const {
    if (unit_is_block_) return static_cast<UnitId>(block);
    const uint32_t plane = static_cast<uint32_t>(per_plane_.Div(block));
    const uint32_t k = static_cast<uint32_t>(per_plane_.Mod(block));
    return group_of_plane_[plane] * geometry_.blocks_per_plane + k;
  }
  UnitId UnitOf(flash::Ppn p) const { return UnitOfBlock(per_block_.Div(p.v)); }

  // --- per unit
  UnitState state(UnitId u) const { return static_cast<UnitState>(state_[u]); }
  uint32_t valid(UnitId u) const { return valid_[u]; }
  uint32_t erase_count(UnitId u) const { return erase_count_[u]; }
  // write_seq() when the unit became full.
  uint64_t close_seq(UnitId u) const { return close_seq_[u]; }
  // The stream the unit was last opened for.
  Stream stream(UnitId u) const { return static_cast<Stream>(stream_[u]); }
  // Pages of u allocated since its last erase (0 if free, unit_pages once
  // closing or later). O(streams) for an open unit.
  uint32_t AllocatedPages(UnitId u) const;
  // True while the unit can still receive pages (state kOpen).
  bool Writable(UnitId u) const { return state_[u] == static_cast<uint8_t>(UnitState::kOpen); }

  // --- per group
  uint32_t free_units(uint32_t group) const { return free_count_[group]; }
  uint64_t total_free_units() const { return total_free_; }
  UnitId open_unit(uint32_t group, Stream s) const { return open_[Slot(group, s)].unit; }
  // The stream's open unit has an unallocated page.
  bool HasRoom(uint32_t group, Stream s) const { return open_[Slot(group, s)].unit != kNoUnit; }
  // Pages of the open unit already allocated (0 if none is open).
  uint32_t write_pointer(uint32_t group, Stream s) const { return open_[Slot(group, s)].wp; }
  // A page of `s` can be allocated while keeping `reserve` free units.
  bool CanAllocate(uint32_t group, Stream s, uint32_t reserve) const {
    return HasRoom(group, s) || free_count_[group] > reserve;
  }

  // --- operations
  // Next page of the stream's open unit, opening a free unit first if needed
  // (the free unit that has waited longest). REQUIRES: CanAllocate(group, s, 0).
  flash::Ppn Allocate(uint32_t group, Stream s) {
    OpenSlot& slot = open_[Slot(group, s)];
    if (slot.unit == kNoUnit) Open(group, s, slot);
    const UnitId u = slot.unit;
    const flash::Ppn p = PpnOf(u, slot.wp);
    ++pending_[u];
    ++write_seq_;
    --erased_pages_;
    if (++slot.wp == unit_pages_) {
      slot.unit = kNoUnit;
      slot.wp = 0;
      state_[u] = static_cast<uint8_t>(UnitState::kClosing);
    }
    return p;
  }
  // Functional placement (FtlCore's Write and GC without simulated time),
  // for one-plane groups: up to `max` consecutive pages of the stream's
  // open unit (opening a free unit first if none), allocated as that many
  // Allocate calls would. The caller maps them, then calls EndRun. Runs do
  // not count as programs in flight. REQUIRES: group_planes() == 1,
  // CanAllocate(group, s, 0), max > 0.
  struct Run {
    UnitId unit;
    flash::Ppn first;  // the run's pages are first .. first + pages - 1
    uint32_t pages;
    bool last;  // the run took the unit's last page
  };
  Run AllocateRun(uint32_t group, Stream s, uint32_t max) {
    DCHECK_EQ(group_planes_, 1u);
    DCHECK_GT(max, 0u);
    OpenSlot& slot = open_[Slot(group, s)];
    if (slot.unit == kNoUnit) Open(group, s, slot);
    const UnitId u = slot.unit;
    const uint32_t n = std::min(max, unit_pages_ - slot.wp);
    Run r{u, PpnOf(u, slot.wp), n, false};
    write_seq_ += n;
    erased_pages_ -= n;
    slot.wp += n;
    if (slot.wp == unit_pages_) {
      slot.unit = kNoUnit;
      slot.wp = 0;
      state_[u] = static_cast<uint8_t>(UnitState::kClosing);
      r.last = true;
    }
    return r;
  }
  // The run's pages now hold valid data and their programs are done: adds
  // them to the unit's valid count, and closes the unit if the run took its
  // last page and no program of it is in flight (as ProgramDone would).
  void EndRun(const Run& r) {
    valid_[r.unit] += r.pages;
    DCHECK_LE(valid_[r.unit], unit_pages_);
    if (r.last && pending_[r.unit] == 0) Close(r.unit);
  }
  // `n` pages of victim u went stale (moved by GC): valid count only, the
  // policy no longer tracks a victim. REQUIRES: state(u) == kVictim.
  void RemoveValidOfVictim(UnitId u, uint32_t n) {
    DCHECK_EQ(state_[u], static_cast<uint8_t>(UnitState::kVictim));
    DCHECK_GE(valid_[u], n);
    valid_[u] -= n;
  }
  // The program of an allocated page finished (immediately in functional use).
  void ProgramDone(flash::Ppn p) {
    const UnitId u = UnitOf(p);
    DCHECK_GT(pending_[u], 0u);
    if (--pending_[u] == 0 && state_[u] == static_cast<uint8_t>(UnitState::kClosing)) Close(u);
  }
  void AddValid(UnitId u) {
    DCHECK_LT(valid_[u], unit_pages_);
    ++valid_[u];
  }
  void RemoveValid(UnitId u);
  // Cache hint: RemoveValid(u) will follow soon (the unit's counters and
  // the policy's entry for it). No effect on results.
  void PrefetchUnit(UnitId u) const;
  // Asks the policy for a victim of `group` and marks it kVictim; kNoUnit if
  // the group has no candidate.
  UnitId SelectVictim(uint32_t group);
  // Makes full unit u the victim without asking the policy (wear leveling).
  // REQUIRES: state(u) == kFull.
  void TakeVictim(UnitId u);
  // Dynamic wear leveling: Allocate opens the free unit of the group with
  // the fewest erases for host and translation streams, and the one with the
  // most erases for GC streams (data that survived GC is colder; ties: the
  // one that waited longest), instead of the one that waited longest. Off
  // by default.
  void set_least_worn_first(bool on) { least_worn_first_ = on; }
  // Most erases of any unit of `group` so far.
  uint32_t max_erase_count(uint32_t group) const { return max_erase_[group]; }
  // REQUIRES: state kVictim, valid 0, no program pending. Returns it to the
  // free pool (tail) and counts the erase.
  void Erase(UnitId u);

  // Replication (functional preconditioning, FtlCore::Precondition): makes
  // group `dst` of this manager a copy of group `src_group` of `src` (same
  // units per group and unit pages): states, valid and erase counts, streams,
  // free-pool order and open units, with unit k of the source group becoming
  // unit k of dst. close_seq is multiplied by `seq_scale` (the source saw
  // 1/seq_scale of this device's page allocations). The policy is not told:
  // call AnnounceFull once every group is copied. REQUIRES: dst untouched
  // since construction; src idle (no unit closing or a victim).
  void CopyGroup(const BlockManager& src, uint32_t src_group, uint32_t dst, uint64_t seq_scale);
  // Tells the policy about every full unit of `group`, in close_seq order
  // (ties by unit id).
  void AnnounceFull(uint32_t group);
  void set_write_seq(uint64_t seq) { write_seq_ = seq; }

  // Pages in free units plus unallocated pages of open units.
  uint64_t erased_pages() const { return erased_pages_; }
  uint64_t write_seq() const { return write_seq_; }

  // Bytes held by the per-unit tables.
  uint64_t MemoryBytes() const;

 private:
  struct OpenSlot {
    UnitId unit = kNoUnit;
    uint32_t wp = 0;
  };
  static uint32_t Slot(uint32_t group, Stream s) { return group * kNumStreams + static_cast<uint32_t>(s); }
  // Opens a free unit of `group` for stream s in `slot` (Allocate).
  void Open(uint32_t group, Stream s, OpenSlot& slot);
  void Close(UnitId u);

  flash::Geometry geometry_;
  uint32_t group_planes_;
  // One plane per group, planes in identity order: unit u is flash block u
  // (the address translations below skip their arithmetic).
  bool unit_is_block_ = false;
  Divisor per_plane_;  // blocks_per_plane: units per group, blocks per plane
  Divisor per_block_;  // pages_per_block
  Divisor planes_;     // group_planes
  uint32_t groups_;
  uint32_t unit_pages_;
  std::vector<uint32_t> plane_order_;
  std::vector<uint32_t> group_of_plane_;
  VictimPolicy* policy_ = nullptr;

  // Per unit (structure of arrays).
  std::vector<uint32_t> valid_;
  std::vector<uint32_t> erase_count_;
  std::vector<uint32_t> pending_;
  std::vector<uint64_t> close_seq_;
  std::vector<uint8_t> state_;
  std::vector<uint8_t> stream_;

  // Per group: free pool as a ring of unit ids (capacity units_per_group).
  std::vector<UnitId> free_ring_;
  std::vector<uint32_t> free_head_;
  std::vector<uint32_t> free_count_;
  uint64_t total_free_ = 0;
  std::vector<OpenSlot> open_;

  uint64_t erased_pages_ = 0;
  uint64_t write_seq_ = 0;
  bool least_worn_first_ = false;
  std::vector<uint32_t> max_erase_;  // per group
};

}  // namespace ftl
