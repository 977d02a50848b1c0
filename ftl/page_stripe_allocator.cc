// page_stripe: host page n goes to plane stripe[n mod planes]; all host
// streams share one rotation, so every plane receives the same share.
#include "ftl/allocator.h"
#include "sim/registry.h"

namespace ftl {
namespace {

class PageStripeAllocator final : public Allocator {
 public:
  explicit PageStripeAllocator(const AllocatorContext& ctx) : blocks_(*ctx.blocks), stripe_(ctx.stripe) {}
  uint32_t NextGroup(Stream, Lpn) override {
    const uint32_t plane = stripe_[next_];
    if (++next_ == stripe_.size()) next_ = 0;
    return blocks_.GroupOfPlane(plane);
  }

 private:
  const BlockManager& blocks_;
  std::vector<uint32_t> stripe_;
  uint32_t next_ = 0;
};

std::unique_ptr<Allocator> Make(const AllocatorContext& ctx) { return std::make_unique<PageStripeAllocator>(ctx); }

}  // namespace

const sim::Registrar<AllocatorInfo> kRegistered{{
    "page_stripe", "consecutive host pages rotate over planes in stripe_order", false, &Make}};

}  // namespace ftl
