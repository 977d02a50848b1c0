#include "ftl/allocator.h"

#include <algorithm>
#include <array>

#include "sim/registry.h"

namespace ftl {

const std::vector<const AllocatorInfo*>& Allocators() { return sim::Registry<AllocatorInfo>::Get().entries(); }

std::vector<std::string> AllocatorNames() { return sim::Registry<AllocatorInfo>::Get().Names(); }

sim::Result<const AllocatorInfo*> FindAllocator(std::string_view name) {
  return sim::Registry<AllocatorInfo>::Get().Lookup(name, "allocation scheme");
}

sim::Result<std::vector<uint32_t>> StripeSequence(const flash::Geometry& g, std::string_view order) {
  const std::string_view kLetters = "CWDP";
  bool ok = order.size() == 4;
  for (const char c : kLetters) ok = ok && std::count(order.begin(), order.end(), c) == 1;
  if (!ok) {
    return sim::Status::InvalidInput("bad stripe order '" + std::string(order) +
                                     "': use each of the letters C (channel), W (way), D (die), P (plane) once");
  }
  std::array<uint32_t, 4> radix{};
  for (size_t i = 0; i < 4; ++i) {
    switch (order[i]) {
      case 'C': radix[i] = g.channels; break;
      case 'W': radix[i] = g.chips_per_channel; break;
      case 'D': radix[i] = g.dies_per_chip; break;
      default: radix[i] = g.planes_per_die; break;
    }
  }
  std::vector<uint32_t> seq;
  seq.reserve(g.planes());
  for (uint32_t n = 0; n < g.planes(); ++n) {
    flash::FlashAddr a;
    uint32_t rest = n;
    for (size_t i = 0; i < 4; ++i) {
      const uint32_t digit = rest % radix[i];
      rest /= radix[i];
      switch (order[i]) {
        case 'C': a.channel = digit; break;
        case 'W': a.chip = digit; break;
        case 'D': a.die = digit; break;
        default: a.plane = digit; break;
      }
    }
    seq.push_back(g.DieId(a.channel, a.chip, a.die) * g.planes_per_die + a.plane);
  }
  return seq;
}

}  // namespace ftl
