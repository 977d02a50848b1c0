// NAND array geometry and physical page numbering.
//
// Hierarchy: channel > chip (way) > die > plane > block > page. Dies are
// numbered die_id = (channel * chips_per_channel + chip) * dies_per_chip + die,
// planes plane_id = die_id * planes_per_die + plane, blocks
// block_id = plane_id * blocks_per_plane + block, and physical pages
// Ppn = block_id * pages_per_block + page. The numbering is a bijection;
// allocation order (striping) is a policy of the FTL, not of this layout.
#pragma once

#include <cstdint>

#include "sim/config.h"
#include "sim/status.h"
#include "sim/units.h"

namespace flash {

// Physical page number (flat, see above).
struct Ppn {
  uint64_t v = UINT64_MAX;
  constexpr bool valid() const { return v != UINT64_MAX; }
  constexpr auto operator<=>(const Ppn&) const = default;
};
inline constexpr Ppn kInvalidPpn{};

struct FlashAddr {
  uint32_t channel = 0, chip = 0, die = 0, plane = 0, block = 0, page = 0;
};

// Largest supported totals. Flash blocks (and the FTL's erase units) are
// numbered with 32-bit ids that keep UINT32_MAX as "none"; byte addresses
// of the raw array must stay well inside 64 bits.
inline constexpr uint64_t kMaxBlocks = UINT32_MAX - 1;
inline constexpr uint64_t kMaxRawBytes = uint64_t{1} << 60;

struct Geometry {
  uint32_t channels = 8;
  uint32_t chips_per_channel = 4;
  uint32_t dies_per_chip = 2;
  uint32_t planes_per_die = 2;
  uint32_t blocks_per_plane = 2048;
  uint32_t pages_per_block = 256;
  sim::Bytes page_size{8192};

  static void Describe(sim::Schema<Geometry>& s);
  // Cross-key checks: the totals (blocks(), bytes()) stay within kMaxBlocks
  // and kMaxRawBytes. InvalidInput naming the key, relative to the geometry
  // section ("blocks_per_plane: ...").
  sim::Status Validate() const;

  uint32_t dies() const { return channels * chips_per_channel * dies_per_chip; }
  uint32_t planes() const { return dies() * planes_per_die; }
  uint64_t blocks() const { return static_cast<uint64_t>(planes()) * blocks_per_plane; }
  uint64_t pages() const { return blocks() * pages_per_block; }
  uint64_t bytes() const { return pages() * page_size.value; }

  uint32_t DieId(uint32_t channel, uint32_t chip, uint32_t die) const {
    return (channel * chips_per_channel + chip) * dies_per_chip + die;
  }
  uint32_t ChannelOfDie(uint32_t die_id) const { return die_id / (chips_per_channel * dies_per_chip); }
  uint32_t PlaneOfPpn(Ppn p) const { return static_cast<uint32_t>(p.v / pages_per_block / blocks_per_plane); }
  uint32_t DieOfPpn(Ppn p) const { return PlaneOfPpn(p) / planes_per_die; }
  uint32_t ChannelOfPpn(Ppn p) const { return ChannelOfDie(DieOfPpn(p)); }
  uint64_t BlockOfPpn(Ppn p) const { return p.v / pages_per_block; }
  uint32_t PageInBlock(Ppn p) const { return static_cast<uint32_t>(p.v % pages_per_block); }
  Ppn FirstPpnOfBlock(uint64_t block_id) const { return Ppn{block_id * pages_per_block}; }

  Ppn ToPpn(const FlashAddr& a) const {
    const uint64_t plane_id = static_cast<uint64_t>(DieId(a.channel, a.chip, a.die)) * planes_per_die + a.plane;
    return Ppn{(plane_id * blocks_per_plane + a.block) * pages_per_block + a.page};
  }
  FlashAddr ToAddr(Ppn p) const {
    FlashAddr a;
    a.page = static_cast<uint32_t>(p.v % pages_per_block);
    uint64_t rest = p.v / pages_per_block;
    a.block = static_cast<uint32_t>(rest % blocks_per_plane);
    rest /= blocks_per_plane;
    a.plane = static_cast<uint32_t>(rest % planes_per_die);
    rest /= planes_per_die;
    a.die = static_cast<uint32_t>(rest % dies_per_chip);
    rest /= dies_per_chip;
    a.chip = static_cast<uint32_t>(rest % chips_per_channel);
    a.channel = static_cast<uint32_t>(rest / chips_per_channel);
    return a;
  }
};

}  // namespace flash
