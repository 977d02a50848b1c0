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

SimTime TransferTime(uint64_t bytes, double bytes_per_sec) {
  return Ns(static_cast<int64_t>(std::ceil(static_cast<double>(bytes) * 1e9 / bytes_per_sec - 1e-9)));
}

}  // namespace sim
