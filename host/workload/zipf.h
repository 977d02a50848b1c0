// ZipfSampler: ranks 0..n-1 with P(k) proportional to 1 / (k + 1)^theta.
//
// Rejection-inversion sampling (W. Hörmann, G. Derflinger, "Rejection-
// inversion to generate variates from monotone discrete distributions",
// 1996): invert the integral of a continuous hat function over the ranks and
// accept with a cheap test. O(1) expected time per draw (a few exp/log, on
// average well under 1.1 iterations for any theta) and O(1) memory, so it
// works for any n up to 2^53 — unlike an inverse-CDF or alias table, whose
// setup is O(n). Draws consume a variable number of Rng values.
#pragma once

#include <cstdint>

#include "sim/rng.h"

namespace host {

class ZipfSampler {
 public:
  // REQUIRES: n >= 1, 0 < theta <= 100 (theta = 1 is fine).
  ZipfSampler(uint64_t n, double theta);

  // A rank in [0, n); rank 0 is the most popular.
  uint64_t Next(sim::Rng& rng) const;

  uint64_t n() const { return n_; }
  double theta() const { return theta_; }

 private:
  double H(double x) const;         // integral of the hat: ((x^(1-theta)) - 1) / (1 - theta)
  double HInverse(double x) const;  // inverse of H
  double Hat(double x) const;       // x^-theta

  uint64_t n_;
  double theta_;
  double h_x1_;  // H(1.5) - 1: the left end of the inversion interval
  double h_n_;   // H(n + 0.5): the right end
  double s_;     // squeeze: accept at once when k - x <= s_
};

}  // namespace host
