// Allocator: which group receives the next host page (write placement).
//
// Contract:
// - NextGroup(stream, lpn) returns the group (see block_manager.h) whose
//   open unit of `stream` should take the next host page, which holds lpn.
//   It is called once per host page, in submission order; the FTL then allocates in that group,
//   waiting for GC if the group has no room. The choice is a preference: a
//   group at its data cap (FtlCore) does not take the page and the FTL
//   places it in another group. It must be deterministic given the call
//   sequence and (for load-aware schemes) the array's die loads.
// - Load-aware schemes read FlashArray::DieLoad; in functional use (no array)
//   they fall back to a fixed rotation.
// - No allocation per call.
//
// Schemes (one .cc each), listed in Allocators():
//   page_stripe   consecutive host pages rotate over planes in the order
//                 given by stripe_order (first letter varies fastest)
//   block_stripe  a whole block is filled on one plane before the next plane
//                 (planes visited in stripe_order), per host stream
//   superblock    one group spanning every plane: a unit is block k of every
//                 plane, written page-striped across planes in stripe_order;
//                 GC selects, relocates and erases whole superblocks
//   dynamic       the least-loaded die (DieLoad; ties rotate), then the next
//                 plane of that die round-robin; dies whose planes cannot
//                 take a host page without waiting for GC are avoided
//   static        the page's address fixes its plane: Lpn l goes to plane
//                 stripe[l mod planes], so consecutive logical pages visit
//                 channels, ways, dies and planes in stripe_order whatever
//                 the write order (MQSim's static plane allocation, e.g.
//                 CWDP); GC keeps pages in their plane
//
// stripe_order: a permutation of the letters C (channel), W (way = chip),
// D (die in chip), P (plane in die), e.g. "CWDP" sends consecutive pages to
// different channels first, then chips, dies, planes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ftl/block_manager.h"
#include "ftl/ftl.h"
#include "flash/flash_array.h"
#include "sim/status.h"

namespace ftl {

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual uint32_t NextGroup(Stream stream, Lpn lpn) = 0;
};

struct AllocatorContext {
  const BlockManager* blocks = nullptr;
  const flash::FlashArray* array = nullptr;  // null in functional use
  std::vector<uint32_t> stripe;               // every plane, in stripe order
  uint32_t host_reserve = 1;                  // free units a group keeps for GC
};

struct AllocatorInfo {
  const char* name;
  const char* description;
  // Units span every plane (superblocks) instead of one block.
  bool superblock_units;
  std::unique_ptr<Allocator> (*make)(const AllocatorContext& ctx);
};

// Every registered scheme, sorted by name.
const std::vector<const AllocatorInfo*>& Allocators();
std::vector<std::string> AllocatorNames();
// InvalidInput "unknown allocation scheme 'x'; choices: ..." for an unknown name.
sim::Result<const AllocatorInfo*> FindAllocator(std::string_view name);

// Planes in the order consecutive pages visit them under `order` (see above).
// InvalidInput unless `order` is a permutation of "CWDP".
sim::Result<std::vector<uint32_t>> StripeSequence(const flash::Geometry& g, std::string_view order);

}  // namespace ftl
