// block_stripe: each host stream stays on one plane for a whole block
// (pages_per_block consecutive pages), then moves to the next plane in
// stripe order. Because only that stream writes its open block on the plane,
// the block boundaries line up with the switches.
#include <array>

#include "ftl/allocator.h"
#include "sim/registry.h"

namespace ftl {
namespace {

class BlockStripeAllocator final : public Allocator {
 public:
  explicit BlockStripeAllocator(const AllocatorContext& ctx)
      : blocks_(*ctx.blocks), stripe_(ctx.stripe), pages_(ctx.blocks->unit_pages()) {}
  uint32_t NextGroup(Stream s, Lpn) override {
    Cursor& c = cursor_[static_cast<uint32_t>(s)];
    const uint32_t plane = stripe_[c.index];
    if (++c.written == pages_) {
      c.written = 0;
      if (++c.index == stripe_.size()) c.index = 0;
    }
    return blocks_.GroupOfPlane(plane);
  }

 private:
  struct Cursor {
    uint32_t index = 0;
    uint32_t written = 0;
  };
  const BlockManager& blocks_;
  std::vector<uint32_t> stripe_;
  uint32_t pages_;
  std::array<Cursor, kNumStreams> cursor_{};
};

std::unique_ptr<Allocator> Make(const AllocatorContext& ctx) { return std::make_unique<BlockStripeAllocator>(ctx); }

}  // namespace

const sim::Registrar<AllocatorInfo> kRegistered{{
    "block_stripe", "fill a whole block on one plane, then move to the next plane", false, &Make}};

}  // namespace ftl
