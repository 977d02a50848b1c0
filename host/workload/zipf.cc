#include "host/workload/zipf.h"

#include <cmath>

#include <glog/logging.h>

namespace host {

namespace {
// log1p(x) / x, continuous at 0.
double Log1pOverX(double x) {
  return std::fabs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}
// expm1(x) / x, continuous at 0.
double Expm1OverX(double x) {
  return std::fabs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}
}  // namespace

ZipfSampler::ZipfSampler(uint64_t n, double theta) : n_(n), theta_(theta) {
  CHECK_GE(n, 1u);
  CHECK(theta > 0 && theta <= 100) << "zipf theta " << theta;
  h_x1_ = H(1.5) - 1.0;
  h_n_ = H(static_cast<double>(n) + 0.5);
  s_ = 2.0 - HInverse(H(2.5) - Hat(2.0));
}

// Written through log/expm1 helpers so theta = 1 (where the closed form has
// 0/0) needs no special case and stays accurate near it.
double ZipfSampler::H(double x) const {
  const double log_x = std::log(x);
  return Expm1OverX((1.0 - theta_) * log_x) * log_x;
}

double ZipfSampler::HInverse(double x) const {
  double t = x * (1.0 - theta_);
  if (t < -1.0) t = -1.0;  // rounding guard: the true value is never below -1
  return std::exp(Log1pOverX(t) * x);
}

double ZipfSampler::Hat(double x) const { return std::exp(-theta_ * std::log(x)); }

uint64_t ZipfSampler::Next(sim::Rng& rng) const {
  const double n = static_cast<double>(n_);
  while (true) {
    // u uniform in (H(n + 0.5), H(1.5) - 1]; the hat's inverse maps it to a
    // continuous x in [0.5, n + 0.5], rounded to the candidate rank k.
    const double u = h_n_ + rng.UniformDouble() * (h_x1_ - h_n_);
    const double x = HInverse(u);
    double k = std::floor(x + 0.5);
    if (k < 1.0) k = 1.0;
    if (k > n) k = n;
    if (k - x <= s_ || u >= H(k + 0.5) - Hat(k)) return static_cast<uint64_t>(k) - 1;
  }
}

}  // namespace host
