#include "ssd/device_config.h"

#include <fmt/format.h>

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

sim::Status ValidateDeviceForFtl(const DeviceConfig& dev, const ftl::FtlConfig& ftl) {
  if (ftl.FixesPlacement() && dev.ssd.write_buffer.size.value >= dev.geometry.page_size.value) {
    return sim::Status::InvalidInput(fmt::format(
        "device.ssd.write_buffer.size: {} bytes, but ftl.kind {} takes whole flash pages in order and reports "
        "refused writes on the request; a write buffer would complete writes before they reach the FTL and "
        "destage them in its own order; set 0",
        dev.ssd.write_buffer.size.value, ftl.kind));
  }
  return sim::Status::Ok();
}

}  // namespace ssd
