// DeviceLayout: what a block device tells the layer above about its flash.
//
// The FTL describes the layout (geometry, and where it fixes placement,
// which logical range lands on which channel/die/block); the host interface
// passes it up through BlockDevice::layout(). A file system that places data
// itself (ParaFS's 2-D allocation) reads it; one that does not may ignore it.
//
// Units: page_size in bytes; a flash block is pages_per_block pages; a
// logical block is the same number of consecutive logical pages, starting
// at a multiple of the block size.
#pragma once

#include <cstdint>

#include "ftl/fixed_placement.h"
#include "ftl/zoned.h"

namespace ssd {

// A physical place of the flash array, and the placement fixed by the FTL
// (a static block-mapped FTL): the place of each logical block. Declared in
// ftl/fixed_placement.h, where the FTL implements it; the layers above use
// these names.
using FlashPlace = ftl::FlashPlace;
using FixedPlacement = ftl::FixedPlacement;
// A zoned device's zones (ftl/zoned.h: layout, states, Report Zones).
using Zoned = ftl::Zoned;
using ZoneState = ftl::ZoneState;
using ZoneAction = ftl::ZoneAction;
using ZoneError = ftl::ZoneError;
using ZoneInfo = ftl::ZoneInfo;
using ZoneLayout = ftl::ZoneLayout;

struct DeviceLayout {
  uint32_t channels = 1;
  uint32_t chips_per_channel = 1;
  uint32_t dies_per_chip = 1;
  uint32_t planes_per_die = 1;
  uint64_t blocks_per_plane = 1;
  uint32_t page_size = 4096;
  uint32_t pages_per_block = 1;
  // Null when the device places data itself (a page-mapped FTL); then the
  // channel of a logical address is unknown above the device. Set, by the
  // FTL (Ftl::fixed_placement()), for the static block-mapped FTL; it lives
  // as long as the device. Only logical blocks from fixed->fixed_from() on
  // have a fixed place and the in-order write contract; those before it are
  // the FTL's page-mapped area (ftl.static_block.page_mapped), rewritable in
  // place in any order, where a file system keeps its metadata (a partial
  // page write there is read-modified-written like on a page-mapped device,
  // if ssd.partial_page_rmw is on).
  const FixedPlacement* fixed = nullptr;
  // Set for a zoned device (ftl.kind: zns), null otherwise: its zone layout
  // in flash pages (conventional area, zone size and capacity, limits) and
  // Report Zones. A zoned device's writes are whole pages (partial pages in
  // the zone area are refused, kPartialPage) and it has no write buffer. Lives
  // as long as the device; writes and zone commands go through Submit.
  const Zoned* zoned = nullptr;
};

}  // namespace ssd
