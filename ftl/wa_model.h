// Analytical write amplification under uniform random page writes, for
// validating the FTL (see the project's validation reference, section 1).
// alpha = T/U (physical / logical pages) > 1.
#pragma once

namespace ftl {

// Principal branch W0 of the Lambert W function: W0(x) e^{W0(x)} = x.
// REQUIRES: x >= -1/e. Accurate to ~1e-14 relative.
double LambertW0(double x);

// FIFO (and LRU) cleaning: A = alpha / (alpha + W0(-alpha e^{-alpha})).
double FifoWriteAmplification(double alpha);
// Random victim (d = 1): A = alpha / (alpha - 1) = 1 / Sf.
double RandomWriteAmplification(double alpha);
// Agarwal-Marrow greedy approximation with OP = alpha - 1: (1+OP)/(2 OP).
double AgarwalWriteAmplification(double alpha);

}  // namespace ftl
