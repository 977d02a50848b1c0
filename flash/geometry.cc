#include "flash/geometry.h"

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

}  // namespace flash
