// Strong types for configured quantities other than time (see sim/time.h).
#pragma once

#include <cstdint>
#include <compare>

namespace sim {

// A size in bytes. Parsed from "4096", "4KiB", "2MiB", "1GB" (SI) etc.
struct Bytes {
  uint64_t value = 0;
  constexpr auto operator<=>(const Bytes&) const = default;
};
constexpr Bytes KiB(uint64_t n) { return Bytes{n << 10}; }
constexpr Bytes MiB(uint64_t n) { return Bytes{n << 20}; }
constexpr Bytes GiB(uint64_t n) { return Bytes{n << 30}; }

// A data rate in bytes per second. Parsed from "333MB/s", "1GiB/s", "8Gb/s".
struct Bandwidth {
  double bytes_per_sec = 0;
  constexpr auto operator<=>(const Bandwidth&) const = default;
};

// A dimensionless fraction in [0, 1] unless a range says otherwise.
// Parsed from "7%" or "0.07".
struct Ratio {
  double value = 0;
  constexpr auto operator<=>(const Ratio&) const = default;
};

}  // namespace sim
