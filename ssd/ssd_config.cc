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

void ArbitrationConfig::Describe(sim::Schema<ArbitrationConfig>& s) {
  s.Choice("policy", &ArbitrationConfig::policy, "rr", {"rr", "wrr"},
           "NVMe command arbitration: rr (round robin over the queues) or wrr (weighted round robin with urgent "
           "priority class); acts only with max_outstanding > 0");
  // NVMe encodes the burst as 2^n (n = 0..6) or "no limit"; any count is
  // accepted here. 1 is the reset value of the Arbitration feature.
  s.Param("burst", &ArbitrationConfig::burst, "1",
          "Arbitration burst: most commands taken from one queue per arbitration decision")
      .Range(1, 65536);
  // The weights are 0's based 8-bit fields in NVMe (1..256 commands); the
  // spec leaves their reset values to the controller: 1 each (plain round
  // robin among the classes) until a configuration sets them.
  s.Param("high_weight", &ArbitrationConfig::high_weight, "1", "wrr: commands of the high class per round")
      .Range(1, 256);
  s.Param("medium_weight", &ArbitrationConfig::medium_weight, "1", "wrr: commands of the medium class per round")
      .Range(1, 256);
  s.Param("low_weight", &ArbitrationConfig::low_weight, "1", "wrr: commands of the low class per round")
      .Range(1, 256);
  s.Param("max_outstanding", &ArbitrationConfig::max_outstanding, "0",
          "Commands the controller holds at once (fetched, not yet completed); queued commands beyond it wait "
          "for arbitration; 0 = no bound (every admitted command is fetched at once)")
      .Range(0, kMaxCommandContexts);
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
  s.Section("arbitration", &SsdConfig::arbitration, "NVMe command arbitration between submission queues");
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
