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
//
// A device may keep a page-mapped area at the start of its logical space
// (ftl.static_block.page_mapped: for a file system's metadata updated in
// place): logical blocks [0, fixed_from()) take writes of any page in any
// order, overwrites included, and their pages move between flash blocks
// (the FTL cleans the area itself). Such a block has no place: only blocks
// [fixed_from(), logical_blocks()) are fixed, and only there do the
// in-order / erase-on-trim rules hold. A file system that places data by
// PlaceOf must keep that data at or after fixed_from() (F2FS: its main
// area, main_blkaddr, starts at or after block fixed_from()).
class FixedPlacement {
 public:
  virtual ~FixedPlacement() = default;
  // Logical blocks of the device (its logical pages / pages_per_block).
  virtual uint64_t logical_blocks() const = 0;
  // The first logical block with a fixed place: the page-mapped area's
  // logical blocks (0 when the device has none, the default).
  // fixed_from() <= logical_blocks().
  virtual uint64_t fixed_from() const { return 0; }
  // The place of a fixed logical block. REQUIRES: logical_block <
  // logical_blocks(). For a block below fixed_from() the result names a
  // flash block of the page-mapped area's pool at the same position of the
  // stripe order, which does not hold that logical block's pages: it must
  // not be used to place data.
  virtual FlashPlace PlaceOf(uint64_t logical_block) const = 0;
  // Pages of fixed logical block b programmed since its last erase (its
  // write pointer, as a zoned device reports it), or -1 when the device
  // does not say: a file system must then assume the whole block may be
  // written. REQUIRES: fixed_from() <= b < logical_blocks().
  virtual int64_t WrittenPages(uint64_t /*b*/) const { return -1; }
};

}  // namespace ftl
