#include "ftl/block_manager.h"

#include <algorithm>
#include <numeric>

#include "ftl/victim_policy.h"

namespace ftl {

namespace {
std::vector<uint32_t> IdentityOrder(uint32_t n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}
}  // namespace

BlockManager::BlockManager(const flash::Geometry& geometry)
    : BlockManager(geometry, 1, IdentityOrder(geometry.planes())) {}

BlockManager::BlockManager(const flash::Geometry& geometry, uint32_t group_planes,
                           std::vector<uint32_t> plane_order)
    : geometry_(geometry),
      group_planes_(group_planes),
      per_plane_(geometry.blocks_per_plane),
      per_block_(geometry.pages_per_block),
      planes_(group_planes),
      plane_order_(std::move(plane_order)) {
  const uint32_t planes = geometry_.planes();
  CHECK_GE(group_planes_, 1u);
  CHECK_EQ(planes % group_planes_, 0u) << "planes per group must divide the plane count";
  CHECK_EQ(plane_order_.size(), planes);
  const uint64_t unit_pages = static_cast<uint64_t>(group_planes_) * geometry_.pages_per_block;
  CHECK_LT(unit_pages, uint64_t{1} << 32);
  CHECK_LT(static_cast<uint64_t>(planes) * geometry_.blocks_per_plane, uint64_t{kNoUnit});
  unit_pages_ = static_cast<uint32_t>(unit_pages);
  groups_ = planes / group_planes_;
  group_of_plane_.assign(planes, UINT32_MAX);
  for (uint32_t i = 0; i < planes; ++i) {
    const uint32_t p = plane_order_[i];
    CHECK_LT(p, planes);
    CHECK_EQ(group_of_plane_[p], UINT32_MAX) << "plane " << p << " listed twice";
    group_of_plane_[p] = i / group_planes_;
  }
  unit_is_block_ = group_planes_ == 1;
  for (uint32_t i = 0; i < planes && unit_is_block_; ++i) unit_is_block_ = plane_order_[i] == i;

  const uint64_t n = units();
  valid_.assign(n, 0);
  erase_count_.assign(n, 0);
  pending_.assign(n, 0);
  close_seq_.assign(n, 0);
  state_.assign(n, static_cast<uint8_t>(UnitState::kFree));
  stream_.assign(n, 0);
  free_ring_.resize(n);
  std::iota(free_ring_.begin(), free_ring_.end(), 0u);  // group g's ring holds units g*bpp .. in order
  free_head_.assign(groups_, 0);
  free_count_.assign(groups_, units_per_group());
  max_erase_.assign(groups_, 0);
  total_free_ = n;
  open_.assign(static_cast<size_t>(groups_) * kNumStreams, OpenSlot{});
  erased_pages_ = n * unit_pages_;
}

void BlockManager::Open(uint32_t group, Stream s, OpenSlot& slot) {
  CHECK_GT(free_count_[group], 0u) << "no free unit in group " << group;
  const uint32_t upg = units_per_group();
  uint32_t& head = free_head_[group];
  UnitId* ring = &free_ring_[static_cast<uint64_t>(group) * upg];
  if (least_worn_first_) {
    // Bring the least-worn free unit (the most-worn one for GC copies) to
    // the head of the ring.
    const bool most = s == Stream::kGc || s == Stream::kGcCold;
    uint32_t best = head;
    for (uint32_t i = 1, pos = head + 1; i < free_count_[group]; ++i, ++pos) {
      if (pos == upg) pos = 0;
      const uint32_t e = erase_count_[ring[pos]], b = erase_count_[ring[best]];
      if (most ? e > b : e < b) best = pos;
    }
    std::swap(ring[head], ring[best]);
  }
  slot.unit = ring[head];
  head = head + 1 == upg ? 0 : head + 1;
  --free_count_[group];
  --total_free_;
  slot.wp = 0;
  DCHECK_EQ(state_[slot.unit], static_cast<uint8_t>(UnitState::kFree));
  state_[slot.unit] = static_cast<uint8_t>(UnitState::kOpen);
  stream_[slot.unit] = static_cast<uint8_t>(s);
}

uint32_t BlockManager::AllocatedPages(UnitId u) const {
  switch (state(u)) {
    case UnitState::kFree:
      return 0;
    case UnitState::kOpen:
      for (uint32_t s = 0; s < kNumStreams; ++s) {
        const OpenSlot& slot = open_[Slot(GroupOf(u), static_cast<Stream>(s))];
        if (slot.unit == u) return slot.wp;
      }
      LOG(FATAL) << "open unit " << u << " is in no open slot";
    default:
      return unit_pages_;
  }
}

void BlockManager::Close(UnitId u) {
  state_[u] = static_cast<uint8_t>(UnitState::kFull);
  close_seq_[u] = write_seq_;
  if (policy_ != nullptr) policy_->OnUnitFull(u);
}

void BlockManager::RemoveValid(UnitId u) {
  DCHECK_GT(valid_[u], 0u);
  --valid_[u];
  if (state_[u] == static_cast<uint8_t>(UnitState::kFull) && policy_ != nullptr) policy_->OnValidDecrement(u);
}

void BlockManager::PrefetchUnit(UnitId u) const {
  __builtin_prefetch(&valid_[u]);
  __builtin_prefetch(&state_[u]);
  if (policy_ != nullptr) policy_->Prefetch(u);
}

UnitId BlockManager::SelectVictim(uint32_t group) {
  if (policy_ == nullptr) return kNoUnit;
  const UnitId u = policy_->SelectVictim(group);
  if (u == kNoUnit) return u;
  CHECK_EQ(GroupOf(u), group);
  CHECK_EQ(state_[u], static_cast<uint8_t>(UnitState::kFull)) << "policy returned a non-candidate unit " << u;
  state_[u] = static_cast<uint8_t>(UnitState::kVictim);
  return u;
}

void BlockManager::TakeVictim(UnitId u) {
  CHECK_EQ(state_[u], static_cast<uint8_t>(UnitState::kFull)) << "unit " << u << " is not full";
  if (policy_ != nullptr) policy_->Remove(u);
  state_[u] = static_cast<uint8_t>(UnitState::kVictim);
}

void BlockManager::Erase(UnitId u) {
  CHECK_EQ(state_[u], static_cast<uint8_t>(UnitState::kVictim));
  CHECK_EQ(valid_[u], 0u) << "erasing unit " << u << " with valid pages";
  CHECK_EQ(pending_[u], 0u);
  state_[u] = static_cast<uint8_t>(UnitState::kFree);
  ++erase_count_[u];
  const uint32_t g = GroupOf(u);
  max_erase_[g] = std::max(max_erase_[g], erase_count_[u]);
  const uint32_t upg = units_per_group();
  uint32_t tail = free_head_[g] + free_count_[g];
  if (tail >= upg) tail -= upg;
  free_ring_[static_cast<uint64_t>(g) * upg + tail] = u;
  ++free_count_[g];
  ++total_free_;
  erased_pages_ += unit_pages_;
}

void BlockManager::CopyGroup(const BlockManager& src, uint32_t src_group, uint32_t dst, uint64_t seq_scale) {
  const uint32_t upg = units_per_group();
  CHECK_EQ(src.units_per_group(), upg);
  CHECK_EQ(src.unit_pages(), unit_pages_);
  CHECK_EQ(free_count_[dst], upg) << "group " << dst << " is not fresh";
  const uint64_t s0 = static_cast<uint64_t>(src_group) * upg;
  const uint64_t d0 = static_cast<uint64_t>(dst) * upg;
  for (uint32_t k = 0; k < upg; ++k) {
    const uint64_t su = s0 + k, du = d0 + k;
    CHECK_EQ(src.pending_[su], 0u) << "source unit " << su << " has programs in flight";
    const auto st = static_cast<UnitState>(src.state_[su]);
    CHECK(st == UnitState::kFree || st == UnitState::kOpen || st == UnitState::kFull)
        << "source unit " << su << " is closing or a victim";
    CHECK_EQ(state_[du], static_cast<uint8_t>(UnitState::kFree));
    valid_[du] = src.valid_[su];
    erase_count_[du] = src.erase_count_[su];
    close_seq_[du] = src.close_seq_[su] * seq_scale;
    state_[du] = src.state_[su];
    stream_[du] = src.stream_[su];
    free_ring_[d0 + k] = static_cast<UnitId>(d0 + (src.free_ring_[s0 + k] - s0));
  }
  free_head_[dst] = src.free_head_[src_group];
  free_count_[dst] = src.free_count_[src_group];
  total_free_ -= upg;
  total_free_ += free_count_[dst];
  for (uint32_t s = 0; s < kNumStreams; ++s) {
    const OpenSlot& from = src.open_[Slot(src_group, static_cast<Stream>(s))];
    OpenSlot& to = open_[Slot(dst, static_cast<Stream>(s))];
    to.wp = from.wp;
    to.unit = from.unit == kNoUnit ? kNoUnit : static_cast<UnitId>(d0 + (from.unit - s0));
  }
  max_erase_[dst] = src.max_erase_[src_group];
  // Erased pages of the group: its free units and the rest of its open units.
  erased_pages_ -= static_cast<uint64_t>(upg) * unit_pages_;
  erased_pages_ += static_cast<uint64_t>(free_count_[dst]) * unit_pages_;
  for (uint32_t s = 0; s < kNumStreams; ++s) {
    const OpenSlot& slot = open_[Slot(dst, static_cast<Stream>(s))];
    if (slot.unit != kNoUnit) erased_pages_ += unit_pages_ - slot.wp;
  }
}

void BlockManager::AnnounceFull(uint32_t group) {
  if (policy_ == nullptr) return;
  const uint32_t upg = units_per_group();
  std::vector<UnitId> full;
  for (uint32_t k = 0; k < upg; ++k) {
    const UnitId u = group * upg + k;
    if (state_[u] == static_cast<uint8_t>(UnitState::kFull)) full.push_back(u);
  }
  std::stable_sort(full.begin(), full.end(), [&](UnitId a, UnitId b) { return close_seq_[a] < close_seq_[b]; });
  for (const UnitId u : full) policy_->OnUnitFull(u);
}

uint64_t BlockManager::MemoryBytes() const {
  return valid_.capacity() * sizeof(uint32_t) + erase_count_.capacity() * sizeof(uint32_t) +
         pending_.capacity() * sizeof(uint32_t) + close_seq_.capacity() * sizeof(uint64_t) +
         state_.capacity() + stream_.capacity() + free_ring_.capacity() * sizeof(UnitId) +
         (free_head_.capacity() + free_count_.capacity() + group_of_plane_.capacity() + plane_order_.capacity()) *
             sizeof(uint32_t) +
         open_.capacity() * sizeof(OpenSlot) + max_erase_.capacity() * sizeof(uint32_t);
}

}  // namespace ftl
