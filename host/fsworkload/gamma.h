// Gamma-distributed samples, as filebench draws file sizes and directory
// widths/depths (Knuth, TAOCP vol. 2: algorithm A for shape > 1, algorithm
// G for shape <= 1), fed by the project's platform-independent Rng.
#pragma once

#include "sim/rng.h"

namespace host {

// A sample with the given shape (filebench's "gamma") and scale; the mean
// is shape * scale. Filebench uses scale = mean / shape.
// REQUIRES: shape > 0, scale >= 0.
double GammaSample(sim::Rng& rng, double shape, double scale);

}  // namespace host
