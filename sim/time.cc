#include "sim/time.h"

#include <cmath>

#include <fmt/format.h>

namespace sim {

std::string SimTime::ToString() const {
  const int64_t a = ns_ < 0 ? -ns_ : ns_;
  if (a < 1000) return fmt::format("{}ns", ns_);
  if (a < 1000000) return fmt::format("{:.4g}us", us());
  if (a < 1000000000) return fmt::format("{:.4g}ms", ms());
  return fmt::format("{:.4g}s", sec());
}

SimTime SaturatingUs(double v) {
  if (std::isnan(v)) return SimTime::Zero();
  // 9.2e15 us is just below 2^63 ns; beyond it Us() would overflow.
  constexpr double kLimitUs = 9.2e15;
  if (v >= kLimitUs) return SimTime::Max();
  if (v <= -kLimitUs) return SimTime::FromNs(-SimTime::Max().ns());
  return Us(v);
}

SimTime SaturatingAdd(SimTime a, SimTime b) {
  int64_t sum;
  if (!__builtin_add_overflow(a.ns(), b.ns(), &sum)) return Ns(sum);
  return b.ns() > 0 ? SimTime::Max() : SimTime::FromNs(-SimTime::Max().ns());
}

SimTime TransferTime(uint64_t bytes, double bytes_per_sec) {
  return Ns(static_cast<int64_t>(std::ceil(static_cast<double>(bytes) * 1e9 / bytes_per_sec - 1e-9)));
}

}  // namespace sim
