// static: a host page's plane is fixed by its logical address. Lpn l goes
// to plane stripe[l mod planes], stripe being every plane in stripe_order
// (first letter varies fastest), so with CWDP consecutive logical pages
// visit every channel, then every way (chip), die and plane, whatever order
// they are written in; an overwrite returns to the plane of its first copy.
// GC copies stay in their plane (a group is one plane), so the placement
// holds for the device's life. A group at its data cap still hands the page
// to another group (FtlCore::HostGroup); with pages spread evenly over the
// planes that needs a skewed trim pattern and is counted in
// redirected_writes.
#include "ftl/allocator.h"
#include "ftl/divisor.h"
#include "sim/registry.h"

namespace ftl {
namespace {

class StaticAllocator final : public Allocator {
 public:
  explicit StaticAllocator(const AllocatorContext& ctx)
      : blocks_(*ctx.blocks), stripe_(ctx.stripe), planes_(static_cast<uint32_t>(ctx.stripe.size())) {
    CHECK_EQ(blocks_.group_planes(), 1u);
  }
  uint32_t NextGroup(Stream, Lpn l) override { return blocks_.GroupOfPlane(stripe_[planes_.Mod(l.v)]); }

 private:
  const BlockManager& blocks_;
  std::vector<uint32_t> stripe_;
  Divisor planes_;
};

std::unique_ptr<Allocator> Make(const AllocatorContext& ctx) { return std::make_unique<StaticAllocator>(ctx); }

}  // namespace

const sim::Registrar<AllocatorInfo> kRegistered{{
    "static", "the logical page fixes its plane: Lpn l on plane l mod planes of stripe_order (MQSim static)", false,
    &Make}};

}  // namespace ftl
