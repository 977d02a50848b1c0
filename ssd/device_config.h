// DeviceConfig: the simulated SSD's hardware, the `device:` section of an
// experiment: geometry (flash/geometry.h), flash timing and command
// execution (flash/flash_config.h), host interface (ssd/ssd_config.h).
#pragma once

#include "sim/config.h"
#include "flash/flash_config.h"
#include "flash/geometry.h"
#include "ftl/ftl_config.h"
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

// Checks that the host interface of `dev` suits the FTL `ftl` configures:
// an FTL with fixed placement (FtlConfig::FixesPlacement) takes whole pages
// written in order and reports refused writes on the request, so no write
// buffer may sit in front of it (a buffer completes writes before they
// reach the FTL and destages them in its own order). Errors name the full
// key ("device.ssd.write_buffer.size: ..."). REQUIRES: ftl.Validate ok.
sim::Status ValidateDeviceForFtl(const DeviceConfig& dev, const ftl::FtlConfig& ftl);

}  // namespace ssd
