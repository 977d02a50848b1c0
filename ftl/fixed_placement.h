// FixedPlacement: where an FTL that fixes placement (the static
// block-mapped S-FTL, ftl/static_block_ftl.h) keeps each logical block.
//
// The FTL implements it; the host interface passes it up unchanged as
// ssd::DeviceLayout::fixed (ssd/device_layout.h re-exports these names), so
// a file system that places data itself (ParaFS's 2-D allocation) learns
// which channel/chip/die/plane a logical block lives on. It lives in ftl/
// because the FTL implements it and ftl/ must not include ssd/.
//
// A logical block is pages_per_block consecutive logical pages starting at
// a multiple of pages_per_block (flash page numbering: Lpn / pages_per_block).
#pragma once

#include <cstdint>

namespace ftl {

// A physical place of the flash array.
struct FlashPlace {
  uint32_t channel = 0, chip = 0, die = 0, plane = 0;
  uint64_t block = 0;  // block index within its plane
  constexpr bool operator==(const FlashPlace&) const = default;
};

// The place of each logical block. Stable for the device's lifetime except
// when the FTL retires a worn or bad block: then only `block` changes (the
// replacement is a spare of the same plane), never the channel, chip, die
// or plane, so a file system's striping stays valid.
class FixedPlacement {
 public:
  virtual ~FixedPlacement() = default;
  // Logical blocks of the device (its logical pages / pages_per_block).
  virtual uint64_t logical_blocks() const = 0;
  // REQUIRES: logical_block < logical_blocks().
  virtual FlashPlace PlaceOf(uint64_t logical_block) const = 0;
};

}  // namespace ftl
