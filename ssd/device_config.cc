#include "ssd/device_config.h"

namespace ssd {

void DeviceConfig::Describe(sim::Schema<DeviceConfig>& s) {
  s.Section("geometry", &DeviceConfig::geometry, "NAND array organisation");
  s.Section("flash", &DeviceConfig::flash, "NAND timing and command execution");
  s.Section("ssd", &DeviceConfig::ssd, "Host interface: queues, PCIe, write buffer");
}

sim::Status DeviceConfig::Validate() const {
  if (sim::Status st = geometry.Validate(); !st.ok()) return sim::Status::InvalidInput("geometry." + st.message());
  if (sim::Status st = flash.Validate(geometry); !st.ok()) return sim::Status::InvalidInput("flash." + st.message());
  if (sim::Status st = ssd.Validate(geometry); !st.ok()) return sim::Status::InvalidInput("ssd." + st.message());
  return sim::Status::Ok();
}

}  // namespace ssd
