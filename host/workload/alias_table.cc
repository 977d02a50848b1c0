#include "host/workload/alias_table.h"

#include <cmath>

#include <glog/logging.h>

namespace host {

AliasTable::AliasTable(const std::vector<double>& weights) {
  const size_t n = weights.size();
  CHECK_GT(n, 0u) << "empty alias table";
  CHECK_LT(n, size_t{1} << 32);
  double sum = 0;
  for (double w : weights) {
    CHECK(std::isfinite(w) && w >= 0) << "bad weight " << w;
    sum += w;
  }
  CHECK_GT(sum, 0) << "all weights are zero";

  probability_.resize(n);
  std::vector<double> scaled(n);  // probability * n: 1.0 is a full column
  std::vector<uint32_t> small, large;
  for (size_t i = 0; i < n; ++i) {
    probability_[i] = weights[i] / sum;
    scaled[i] = probability_[i] * static_cast<double>(n);
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  cols_.assign(n, Column{0, 0});
  // Vose: pair each under-full column with an over-full donor.
  while (!small.empty() && !large.empty()) {
    const uint32_t s = small.back();
    small.pop_back();
    const uint32_t l = large.back();
    cols_[s].alias = l;
    cols_[s].threshold = static_cast<uint64_t>(std::ldexp(scaled[s], 64));
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Whatever is left is full up to rounding: always keep its own index.
  for (uint32_t i : large) cols_[i] = Column{UINT64_MAX, i};
  for (uint32_t i : small) cols_[i] = Column{UINT64_MAX, i};
}

}  // namespace host
