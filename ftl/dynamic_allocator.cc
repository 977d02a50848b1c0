// dynamic: place each host page on the least-loaded die (FlashArray::DieLoad,
// commands queued or running), preferring dies with a plane that can take a
// host page without waiting for GC; ties go to the first die at or after a
// rotating start so equal loads spread evenly. Within the die, planes take
// turns. Without an array (functional use) the loads are all zero and the
// scheme degenerates to die rotation with plane round-robin.
#include "ftl/allocator.h"
#include "sim/registry.h"

namespace ftl {
namespace {

class DynamicAllocator final : public Allocator {
 public:
  explicit DynamicAllocator(const AllocatorContext& ctx)
      : blocks_(*ctx.blocks),
        array_(ctx.array),
        reserve_(ctx.host_reserve),
        dies_(blocks_.geometry().dies()),
        planes_per_die_(blocks_.geometry().planes_per_die),
        next_plane_(dies_, 0) {
    CHECK_EQ(blocks_.group_planes(), 1u);
  }

  uint32_t NextGroup(Stream s, Lpn) override {
    uint32_t best = UINT32_MAX;
    uint64_t best_key = UINT64_MAX;
    for (uint32_t i = 0; i < dies_; ++i) {
      uint32_t die = start_ + i;
      if (die >= dies_) die -= dies_;
      const uint64_t load = array_ != nullptr ? array_->DieLoad(die) : 0;
      // Dies that would make the write wait for GC sort after all others.
      const uint64_t key = (HasRoom(die, s) ? 0 : uint64_t{1} << 40) + load;
      if (key < best_key) {
        best_key = key;
        best = die;
        if (key == 0) break;
      }
    }
    if (++start_ == dies_) start_ = 0;
    // Next plane of the die, preferring one with room.
    uint32_t& rr = next_plane_[best];
    uint32_t plane = best * planes_per_die_ + rr;
    for (uint32_t j = 0; j < planes_per_die_; ++j) {
      const uint32_t candidate = best * planes_per_die_ + (rr + j) % planes_per_die_;
      if (blocks_.CanAllocate(blocks_.GroupOfPlane(candidate), s, reserve_)) {
        plane = candidate;
        rr = (rr + j) % planes_per_die_;
        break;
      }
    }
    if (++rr == planes_per_die_) rr = 0;
    return blocks_.GroupOfPlane(plane);
  }

 private:
  bool HasRoom(uint32_t die, Stream s) const {
    for (uint32_t j = 0; j < planes_per_die_; ++j) {
      if (blocks_.CanAllocate(blocks_.GroupOfPlane(die * planes_per_die_ + j), s, reserve_)) return true;
    }
    return false;
  }

  const BlockManager& blocks_;
  const flash::FlashArray* array_;
  uint32_t reserve_;
  uint32_t dies_;
  uint32_t planes_per_die_;
  uint32_t start_ = 0;
  std::vector<uint32_t> next_plane_;  // per die
};

std::unique_ptr<Allocator> Make(const AllocatorContext& ctx) { return std::make_unique<DynamicAllocator>(ctx); }

}  // namespace

const sim::Registrar<AllocatorInfo> kRegistered{{
    "dynamic", "least-loaded die (DieLoad), then plane round-robin; avoids planes waiting for GC", false, &Make}};

}  // namespace ftl
