// The fixed-latency device of ssd/fixed_latency_device.h under the names
// the tests use.
#pragma once

#include "ssd/fixed_latency_device.h"

namespace fakes {

using ssd::FixedLatencyDevice;
using ssd::FixedLatencyDeviceConfig;
using ssd::SequentialBlocks;

}  // namespace fakes
