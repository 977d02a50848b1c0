// superblock: one group spans every plane (the BlockManager lays units out
// as block k of every plane, page-striped in stripe order), so placement is
// trivial here: every host page goes to group 0's open superblock.
//
// GC works on whole superblocks: the victim policy ranks superblocks by
// their total valid pages, GC relocates the valid pages of all member blocks
// into the GC superblock (crossing planes: no copyback) and erases every
// member block. Free space is pooled device-wide, so one group's foreground
// GC stalls all host writes.
#include "ftl/allocator.h"
#include "sim/registry.h"

namespace ftl {
namespace {

class SuperblockAllocator final : public Allocator {
 public:
  explicit SuperblockAllocator(const AllocatorContext& ctx) { CHECK_EQ(ctx.blocks->groups(), 1u); }
  uint32_t NextGroup(Stream, Lpn) override { return 0; }
};

std::unique_ptr<Allocator> Make(const AllocatorContext& ctx) { return std::make_unique<SuperblockAllocator>(ctx); }

}  // namespace

const sim::Registrar<AllocatorInfo> kRegistered{{
    "superblock", "units are superblocks (block k of every plane), page-striped; GC per superblock", true, &Make}};

}  // namespace ftl
