// The parameters of ParaFS's 2-D allocation policy (fs.f2fs.parafs_2d.*;
// the policy is parafs_2d_allocation_policy.cc, its contract that of
// allocation_policy.h).
#pragma once

#include <string>

#include "sim/config.h"

namespace fs::f2fs {

// In-class initializers equal the declared defaults.
struct Parafs2dConfig {
  std::string dispatch = "round_robin";  // round_robin | least_busy
  double read_weight = 1;
  double write_weight = 8;
  std::string gc_threads = "single";  // single | per_region
  static void Describe(sim::Schema<Parafs2dConfig>& s);
};

}  // namespace fs::f2fs
