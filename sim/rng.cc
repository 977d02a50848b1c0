#include "sim/rng.h"

#include <cmath>

#include <glog/logging.h>

namespace sim {

namespace {
uint64_t SplitMix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
inline uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

uint64_t HashName(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(uint64_t seed, std::string_view stream_name) {
  uint64_t x = seed ^ Rotl(HashName(stream_name), 17);
  Seed(SplitMix64(x));
}

Rng::Rng(uint64_t seed) { Seed(seed); }

void Rng::Seed(uint64_t seed) {
  uint64_t x = seed;
  for (auto& s : s_) s = SplitMix64(x);
}

int64_t Rng::UniformRange(int64_t lo, int64_t hi) {
  CHECK_LE(lo, hi);
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  if (span == 0) return static_cast<int64_t>(Next());
  return lo + static_cast<int64_t>(Uniform(span));
}

double Rng::UniformDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

double Rng::Exponential(double mean) { return -mean * std::log1p(-UniformDouble()); }

}  // namespace sim
