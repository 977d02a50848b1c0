// Seeded random-number streams.
//
// Each component draws from its own stream, derived from the run's seed and
// the component's stable name, so adding a component (or drawing more from
// one) never perturbs another component's sequence. The generator is
// xoshiro256**, seeded through SplitMix64; all draws are platform-independent
// (no std:: distributions, whose output differs between library versions).
#pragma once

#include <cstdint>
#include <string_view>

#include <glog/logging.h>

namespace sim {

class Rng {
 public:
  // A stream for `stream_name` under the run seed `seed`.
  Rng(uint64_t seed, std::string_view stream_name);
  explicit Rng(uint64_t seed);

  // xoshiro256**. Inline, as Uniform: the hot loops (workload offsets,
  // preconditioning's random overwrites) draw one per step.
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, bound). REQUIRES: bound > 0. Unbiased (Lemire's method).
  uint64_t Uniform(uint64_t bound) {
    DCHECK_GT(bound, 0u);
    __uint128_t m = static_cast<__uint128_t>(Next()) * bound;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < bound) [[unlikely]] {
      const uint64_t threshold = -bound % bound;
      while (low < threshold) {
        m = static_cast<__uint128_t>(Next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }
  // Uniform in [lo, hi]. REQUIRES: lo <= hi.
  int64_t UniformRange(int64_t lo, int64_t hi);
  // Uniform double in [0, 1) with 53 random bits.
  double UniformDouble();
  // Exponential with the given mean (> 0).
  double Exponential(double mean);
  bool Bernoulli(double p) { return UniformDouble() < p; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  void Seed(uint64_t seed);
  uint64_t s_[4];
};

// Stable 64-bit hash of a name (FNV-1a), for deriving stream seeds.
uint64_t HashName(std::string_view name);

}  // namespace sim
