// Test helper: random page indices for the conformance tests of the
// per-file index structures (PageIndexSet, PageSlots), clustered where
// their two representations meet.
#pragma once

#include <cstdint>

#include "sim/rng.h"

namespace fs::vfs::testing {

// An index near the start, around `limit` (where a structure switches from
// its direct part to its tree), anywhere below 2 x limit, around a
// multiple of 4,096, or far out (2^40 and up).
inline uint64_t PickPageIndex(sim::Rng& rng, uint64_t limit) {
  switch (rng.Uniform(5)) {
    case 0: return rng.Uniform(130);
    case 1: return limit - 70 + rng.Uniform(140);
    case 2: return rng.Uniform(2 * limit);
    case 3: return 4096 * (1 + rng.Uniform(8)) - 3 + rng.Uniform(6);
    default: return (uint64_t{1} << 40) + rng.Uniform(50);
  }
}

}  // namespace fs::vfs::testing
