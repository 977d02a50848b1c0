#include "flash/geometry.h"

#include <fmt/format.h>

namespace flash {

void Geometry::Describe(sim::Schema<Geometry>& s) {
  s.Param("channels", &Geometry::channels, "8", "Flash channels (independent buses)").Range(1, 1024);
  s.Param("chips_per_channel", &Geometry::chips_per_channel, "4", "Chips (ways) sharing one channel")
      .Range(1, 1024);
  s.Param("dies_per_chip", &Geometry::dies_per_chip, "2", "Dies per chip").Range(1, 64);
  s.Param("planes_per_die", &Geometry::planes_per_die, "2", "Planes per die").Range(1, 16);
  s.Param("blocks_per_plane", &Geometry::blocks_per_plane, "2048", "Erase blocks per plane").Range(1, 1u << 24);
  s.Param("pages_per_block", &Geometry::pages_per_block, "256", "Pages per erase block").Range(1, 1u << 16);
  s.Param("page_size", &Geometry::page_size, "8KiB", "Data bytes per flash page (spare area not modelled)")
      .Range(512, 1u << 20);
}

sim::Status Geometry::Validate() const {
  // Describe() bounds each factor, so blocks() < 2^54 cannot overflow; once
  // it is below 2^32, pages() < 2^48 cannot either. bytes() could, so the
  // capacity is compared in pages.
  if (blocks() > kMaxBlocks) {
    return sim::Status::InvalidInput(fmt::format(
        "blocks_per_plane: channels x chips_per_channel x dies_per_chip x planes_per_die x blocks_per_plane = {} "
        "blocks; at most {} are supported (32-bit block ids)",
        blocks(), kMaxBlocks));
  }
  if (page_size.value == 0) return sim::Status::InvalidInput("page_size: must be positive");
  if (pages() > kMaxRawBytes / page_size.value) {
    return sim::Status::InvalidInput(fmt::format(
        "pages_per_block: {} pages of {} bytes exceed the supported raw capacity of 2^60 bytes", pages(),
        page_size.value));
  }
  return sim::Status::Ok();
}

}  // namespace flash
