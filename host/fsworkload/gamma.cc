#include "host/fsworkload/gamma.h"

#include <cmath>
#include <numbers>

#include <glog/logging.h>

namespace host {

namespace {

// Algorithm A (Knuth 3.4.1): shape a > 1.
double GammaA(sim::Rng& rng, double a) {
  const double s = std::sqrt(2 * a - 1);
  for (;;) {
    const double y = std::tan(std::numbers::pi * rng.UniformDouble());
    const double x = s * y + a - 1;
    if (x <= 0) continue;
    const double v = rng.UniformDouble();
    if (v <= (1 + y * y) * std::exp((a - 1) * std::log(x / (a - 1)) - s * y)) return x;
  }
}

// Algorithm G (Knuth 3.4.1, exercise 16): shape 0 < a <= 1.
double GammaG(sim::Rng& rng, double a) {
  const double p = std::numbers::e / (a + std::numbers::e);
  for (;;) {
    const double u = rng.UniformDouble();
    double v;
    do {
      v = rng.UniformDouble();
    } while (v == 0);
    double x, q;
    if (u < p) {
      x = std::pow(v, 1 / a);
      q = std::exp(-x);
    } else {
      x = 1 - std::log(v);
      q = std::pow(x, a - 1);
    }
    if (rng.UniformDouble() < q) return x;
  }
}

}  // namespace

double GammaSample(sim::Rng& rng, double shape, double scale) {
  CHECK(shape > 0) << "gamma shape must be positive";
  CHECK(scale >= 0) << "gamma scale must not be negative";
  return scale * (shape <= 1.0 ? GammaG(rng, shape) : GammaA(rng, shape));
}

}  // namespace host
