#include "ssd/ssd_config.h"

#include <fmt/format.h>

#include "flash/flash_config.h"

namespace ssd {

void WriteBufferConfig::Describe(sim::Schema<WriteBufferConfig>& s) {
  s.Param("size", &WriteBufferConfig::size, "0", "DRAM write buffer capacity (whole flash pages); 0 = no buffer");
  s.Param("destage_threshold", &WriteBufferConfig::destage_threshold, "100%",
          "Destage in the background while this fraction of the buffer is occupied; 100% = flush on full")
      .Range(0, 1);
  s.Param("max_destage_inflight", &WriteBufferConfig::max_destage_inflight, "0",
          "Buffered pages being programmed at the same time; 0 = 4 per plane of the device")
      .Range(0, 1 << 24);
}

void SsdConfig::Describe(sim::Schema<SsdConfig>& s) {
  s.Param("queues", &SsdConfig::queues, "1", "NVMe submission queues").Range(1, 65535);
  s.Param("queue_depth", &SsdConfig::queue_depth, "64",
          "Commands admitted per submission queue; more wait in a host-side FIFO")
      .Range(1, 65536);
  s.Param("pcie_rate", &SsdConfig::pcie_rate, "4GB/s", "PCIe data rate in each direction")
      .Min(flash::kMinRateBytesPerSec);
  s.Param("request_overhead", &SsdConfig::request_overhead, "0ns",
          "Controller time per request (fetch, decode, completion) before it reaches the FTL")
      .Range(0, flash::kMaxOpNs);
  s.Param("sector_size", &SsdConfig::sector_size, "512", "Logical sector size (512 or 4096 bytes)");
  s.Param("partial_page_rmw", &SsdConfig::partial_page_rmw, "true",
          "A write covering part of a flash page reads the page first (read-modify-write)");
  s.Section("write_buffer", &SsdConfig::write_buffer, "DRAM write buffer");
}

sim::Status SsdConfig::Validate(const flash::Geometry& g) const {
  if (sector_size.value != 512 && sector_size.value != 4096) {
    return sim::Status::InvalidInput(fmt::format("sector_size: {} is not 512 or 4096", sector_size.value));
  }
  if (g.page_size.value % sector_size.value != 0) {
    return sim::Status::InvalidInput(fmt::format("sector_size: {} does not divide the flash page size {}",
                                                 sector_size.value, g.page_size.value));
  }
  if (g.page_size.value / sector_size.value > 64) {
    return sim::Status::InvalidInput(fmt::format(
        "sector_size: {} gives {} sectors per {}-byte page; at most 64 are supported", sector_size.value,
        g.page_size.value / sector_size.value, g.page_size.value));
  }
  if (write_buffer.size.value != 0 && write_buffer.size.value < g.page_size.value) {
    return sim::Status::InvalidInput(fmt::format("write_buffer.size: {} bytes is less than one flash page ({})",
                                                 write_buffer.size.value, g.page_size.value));
  }
  if (g.page_size.value != 0 && write_buffer.size.value / g.page_size.value > kMaxWriteBufferSlots) {
    return sim::Status::InvalidInput(
        fmt::format("write_buffer.size: {} bytes is {} flash pages of {} bytes; at most {} pages are supported",
                    write_buffer.size.value, write_buffer.size.value / g.page_size.value, g.page_size.value,
                    kMaxWriteBufferSlots));
  }
  if (static_cast<uint64_t>(queues) * queue_depth > kMaxCommandContexts) {
    return sim::Status::InvalidInput(
        fmt::format("queue_depth: queues x queue_depth = {} x {} = {} commands; at most {} are supported", queues,
                    queue_depth, static_cast<uint64_t>(queues) * queue_depth, kMaxCommandContexts));
  }
  return sim::Status::Ok();
}

}  // namespace ssd
