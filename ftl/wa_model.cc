#include "ftl/wa_model.h"

#include <algorithm>
#include <cmath>

#include <glog/logging.h>

namespace ftl {

double LambertW0(double x) {
  const double kInvE = 0.36787944117144233;
  CHECK_GE(x, -kInvE - 1e-15) << "LambertW0 is undefined below -1/e";
  if (x == 0) return 0;
  if (x <= -kInvE + 1e-16) return -1.0;  // the branch point
  // Starting point: branch-point series near -1/e, log form for large x.
  double w;
  if (x < -0.25) {
    const double p = std::sqrt(std::max(0.0, 2.0 * (std::exp(1.0) * x + 1.0)));
    w = -1.0 + p - p * p / 3.0 + 11.0 / 72.0 * p * p * p;
  } else if (x < 3) {
    w = std::log1p(x);
  } else {
    const double l = std::log(x);
    w = l - std::log(l);
  }
  // Halley iterations.
  for (int i = 0; i < 64; ++i) {
    const double e = std::exp(w);
    const double f = w * e - x;
    if (w == -1.0) break;
    const double denom = e * (w + 1) - (w + 2) * f / (2 * w + 2);
    if (denom == 0) break;
    const double next = w - f / denom;
    if (std::abs(next - w) <= 1e-15 * (1 + std::abs(next))) {
      w = next;
      break;
    }
    w = next;
  }
  return w;
}

double FifoWriteAmplification(double alpha) {
  CHECK_GT(alpha, 1.0);
  return alpha / (alpha + LambertW0(-alpha * std::exp(-alpha)));
}

double RandomWriteAmplification(double alpha) {
  CHECK_GT(alpha, 1.0);
  return alpha / (alpha - 1.0);
}

double AgarwalWriteAmplification(double alpha) {
  CHECK_GT(alpha, 1.0);
  return alpha / (2.0 * (alpha - 1.0));
}

}  // namespace ftl
