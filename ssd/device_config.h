// DeviceConfig: the simulated SSD's hardware, the `device:` section of an
// experiment: geometry (flash/geometry.h), flash timing and command
// execution (flash/flash_config.h), host interface (ssd/ssd_config.h).
#pragma once

#include "sim/config.h"
#include "flash/flash_config.h"
#include "flash/geometry.h"
#include "ssd/ssd_config.h"
#include "sim/status.h"

namespace ssd {

struct DeviceConfig {
  flash::Geometry geometry;
  flash::FlashConfig flash;
  SsdConfig ssd;

  static void Describe(sim::Schema<DeviceConfig>& s);
  // Cross-key checks of all three parts; messages name the key path under
  // the device section ("flash.timing.tR_msb: ...").
  sim::Status Validate() const;
};

}  // namespace ssd
